//! memplan's integration tests live in `tests/` (fault cases, generated code) and `ui/`
//! (trybuild compile-fail and pass cases, with their committed `.stderr`).

//! How large an expansion memplan emits: the plans whose step views it generates (the
//! lowering refuses a `model` schedule past them; the views skip a plan past them, whose
//! buffers the generic path `live_at` still reaches).

/// The most steps (0 to the last step of any buffer) for which views are emitted.
pub const MAX_STEPS: u64 = 4096;

/// The most fields, over all distinct views, for which views are emitted.
pub const MAX_FIELDS: usize = 65_536;

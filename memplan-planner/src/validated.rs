//! Plan, then prove: the one way the macro, the command line tool and build scripts get a
//! plan they may trust. The plan is checked by the independent validator ([`validate`])
//! before it is given out, and a panic in the planner or the validator (a bug either way)
//! is caught and given back as a [`Failure`], never unwound into the caller (inside rustc a
//! panic would be an internal compiler error).

use std::fmt;

use crate::error::PlanError;
use crate::plan::{Plan, plan};
use crate::problem::Problem;
use crate::strategy::Strategy;
use crate::validate::{Violation, validate};

/// Why [`plan_validated`] or [`validated`] gave no plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The problem has no plan: the planner's errors, each one for the user (overflow,
    /// pins, in-place rules), in the planner's order.
    Errors(Vec<PlanError>),
    /// The planner panicked: a bug in memplan.
    PlannerPanicked,
    /// The validator rejected the plan: a bug in the planner (or, for [`validated`], a
    /// plan from elsewhere that is wrong).
    Rejected(Violation),
    /// The validator panicked: a bug in memplan.
    ValidatorPanicked,
}

impl Failure {
    /// Whether the failure is memplan's own bug rather than the problem's: everything but
    /// [`Failure::Errors`].
    pub fn is_internal(&self) -> bool {
        !matches!(self, Failure::Errors(_))
    }
}

/// The words for a failure that is a bug ([`Failure::is_internal`]); for
/// [`Failure::Errors`], how many errors there are (each has its own words,
/// [`PlanError::display_with`]).
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Errors(errors) => write!(f, "{} planning errors", errors.len()),
            Failure::PlannerPanicked => f.write_str("memplan's planner failed on this plan"),
            Failure::Rejected(v) => write!(
                f,
                "memplan's planner made a plan that its own check rejects ({v}; buffers are numbered from 0 in the problem's order)"
            ),
            Failure::ValidatorPanicked => f.write_str("memplan's plan check failed on this plan"),
        }
    }
}

/// Plans `problem` with `strategy` ([`plan()`]) and checks the plan with [`validate`].
///
/// # Errors
///
/// [`Failure::Errors`] when the problem has no plan; the other variants only on a bug in
/// memplan (a panic is caught, not propagated).
pub fn plan_validated(problem: &Problem, strategy: Strategy) -> Result<Plan, Failure> {
    match caught(|| plan(problem, strategy), Failure::PlannerPanicked)? {
        Ok(p) => validated(problem, p),
        Err(errors) => Err(Failure::Errors(errors)),
    }
}

/// `f()`, or `failure` when it panics (a bug in memplan: the planner or the validator):
/// the one place memplan catches a panic, so that none unwinds into its caller (inside
/// rustc, an internal compiler error). [`plan_validated`] and [`validated`] go through it,
/// and so does any other way to a plan (the front end's lock file path).
///
/// # Errors
///
/// `failure` when `f` panics.
pub fn caught<T>(
    f: impl FnOnce() -> T + std::panic::UnwindSafe,
    failure: Failure,
) -> Result<T, Failure> {
    std::panic::catch_unwind(f).map_err(|_| failure)
}

/// `plan` if [`validate`] accepts it for `problem`: the check every plan goes through
/// before use, whether memplan planned it or it was read (a lock file, a file's offsets).
///
/// # Errors
///
/// [`Failure::Rejected`] with the first violation, or [`Failure::ValidatorPanicked`].
pub fn validated(problem: &Problem, plan: Plan) -> Result<Plan, Failure> {
    match caught(|| validate(problem, &plan), Failure::ValidatorPanicked)? {
        Ok(()) => Ok(plan),
        Err(v) => Err(Failure::Rejected(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Placed;
    use crate::problem::{Buffer, Region};

    fn problem(capacity: u64) -> Problem {
        Problem {
            regions: vec![Region {
                name: "sram".into(),
                capacity,
                align: 8,
            }],
            buffers: vec![
                Buffer::new("a", 512, 0, 0, 1),
                Buffer::new("b", 512, 0, 1, 2),
            ],
        }
    }

    #[test]
    fn a_plan_that_fits_is_validated() {
        let p = plan_validated(&problem(1024), Strategy::Greedy).unwrap();
        // `a` and `b` are both live at step 1: one after the other.
        let mut offsets: Vec<u64> = p.buffers.iter().map(|b| b.offset).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, [0, 512]);
    }

    #[test]
    fn an_overflow_is_the_planners_error_not_an_internal_one() {
        let failure = plan_validated(&problem(1000), Strategy::Greedy).unwrap_err();
        assert!(!failure.is_internal());
        assert!(matches!(failure, Failure::Errors(ref e) if e.len() == 1));
    }

    #[test]
    fn a_plan_with_overlapping_live_buffers_is_rejected() {
        let mut p = plan_validated(&problem(1024), Strategy::Greedy).unwrap();
        p.buffers[1] = Placed {
            region: 0,
            offset: p.buffers[0].offset,
        };
        let failure = validated(&problem(1024), p).unwrap_err();
        assert!(failure.is_internal());
        assert!(matches!(failure, Failure::Rejected(_)));
        assert!(failure.to_string().contains("its own check rejects"));
    }
}

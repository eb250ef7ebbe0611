//! Fitting a compilation into the target's limits by giving up as little
//! structure as possible.
//!
//! The first lowering keeps the contract (every property required, optional
//! ones with a `null` placeholder). When its wire schema exceeds a limit:
//!
//! 1. On a target that allows optional properties (Anthropic), optional
//!    properties travel as optional, up to that limit, instead of with a
//!    placeholder union — spending the optional budget instead of the union
//!    budget.
//! 2. Then the smallest property values or array items whose removal covers
//!    the excess travel as JSON-encoded text (validated locally like every
//!    answer), chosen again on each round until the wire fits.
//! 3. Only when no subtree can make it fit does the caller send the whole
//!    answer as one JSON-encoded string.
//!
//! Every decision is a compile note, so a user sees what was given up.

use super::decode::Step;
use super::limits::{Excess, Resource, WireBudget, WireLimits, WireStats};
use super::lower::{Candidate, Failure, Lowering};
use crate::error::SchemaError;
use crate::output::SchemaTarget;
use indexmap::{IndexMap, IndexSet};
use serde_json::{Value, json};

/// The property that wraps a non-object root, and the fallback string.
pub const WRAPPER_KEY: &str = "value";

/// Most lowering rounds before the whole answer falls back.
const MAX_ROUNDS: usize = 24;

/// A wire schema within the limits.
pub(crate) struct Fitted {
    pub(crate) wire: Value,
    pub(crate) step: Step,
    pub(crate) notes: IndexSet<String>,
    /// What `wire` alone uses.
    pub(crate) stats: WireStats,
}

/// Why no wire schema within the limits was built.
pub(crate) enum Unfit {
    /// The owner schema is malformed, or no value satisfies it.
    Error(SchemaError),
    /// Nothing short of the whole answer as text fits; the reason.
    Whole(String),
}

/// Lowers `owner` for `target` within its limits, counting `budget` as
/// already used. With `wrap_root`, a root that is not an object is wrapped as
/// `{"value": …}` (a whole answer); otherwise it is left as it is (an
/// embedded field).
pub(crate) fn fit(
    owner: &Value,
    target: SchemaTarget,
    budget: &WireBudget,
    wrap_root: bool,
) -> Result<Fitted, Unfit> {
    let limits = WireLimits::for_target(target);
    let mut forced: IndexMap<String, String> = IndexMap::new();
    let mut omit = false;
    let mut collect = false;
    let mut last = None;
    for _ in 0..MAX_ROUNDS {
        let mut lowering = Lowering::new(owner, target);
        lowering.forced = forced.clone();
        lowering.collect = collect;
        if omit {
            lowering.omit_left = limits
                .max_optional
                .unwrap_or(0)
                .saturating_sub(budget.used.optional);
        }
        let (mut wire, mut step) = match lowering.lower(owner, "") {
            Ok(x) => x,
            Err(Failure::Overflow(why)) => return Err(Unfit::Whole(why)),
            Err(Failure::Schema(e) | Failure::Infeasible(e)) => return Err(Unfit::Error(e)),
        };
        let mut offset = budget.depth;
        if wrap_root && wire.get("type") != Some(&json!("object")) {
            lowering.note(
                "",
                format!("the root is not an object: wrapped as {{\"{WRAPPER_KEY}\": …}}"),
            );
            wire = wrap(wire);
            step = unwrap(step);
            offset += 1;
        }
        let stats = WireStats::measure(&wire);
        let Some(excess) = limits.first_excess(&budget.used.combine(stats, budget.depth)) else {
            return Ok(Fitted {
                wire,
                step,
                notes: lowering.notes,
                stats,
            });
        };
        last = Some(excess);
        if !collect {
            // Measure the subtrees from now on, and spend the optional budget
            // before giving up structure for unions.
            collect = true;
            omit = limits.max_optional.is_some() && excess.resource == Resource::Unions;
            continue;
        }
        let picked = pick(&excess, &lowering.candidates, offset, &forced);
        if picked.is_empty() {
            return Err(Unfit::Whole(excess.to_string()));
        }
        forced.extend(picked.into_iter().map(|p| (p, excess.to_string())));
    }
    Err(Unfit::Whole(match last {
        Some(e) => format!("{e}, after {MAX_ROUNDS} rounds of fitting"),
        None => format!("no fit after {MAX_ROUNDS} rounds"),
    }))
}

/// The subtrees to send as text next, for `excess`. `offset` is the number
/// of wire levels above the lowered root (the wrapper, an envelope).
fn pick(
    excess: &Excess,
    candidates: &[Candidate],
    offset: usize,
    forced: &IndexMap<String, String>,
) -> Vec<String> {
    let fresh = candidates.iter().filter(|c| !forced.contains_key(&c.path));
    if excess.resource == Resource::Depth {
        // Cut every too-deep path at the deepest level that still fits.
        let deep: Vec<&Candidate> = fresh
            .filter(|c| {
                offset + c.level + c.stats.depth > excess.max && offset + c.level <= excess.max
            })
            .collect();
        let Some(level) = deep.iter().map(|c| c.level).max() else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for c in deep.into_iter().filter(|c| c.level == level) {
            if !out.contains(&c.path) {
                out.push(c.path.clone());
            }
        }
        return out;
    }
    let of = |c: &Candidate| excess.resource.of(&c.stats);
    let mut pool: Vec<&Candidate> = fresh.filter(|c| of(c) > 0).collect();
    let mut left = excess.used - excess.max;
    let mut out: Vec<String> = Vec::new();
    while left > 0 {
        // The smallest subtree that covers what is left, else the largest.
        let covering = pool
            .iter()
            .filter(|c| of(c) >= left)
            .min_by_key(|c| (of(c), c.stats.properties));
        let Some(best) = covering
            .or_else(|| pool.iter().max_by_key(|c| of(c)))
            .copied()
        else {
            break;
        };
        left = left.saturating_sub(of(best));
        pool.retain(|c| !nested(&c.path, &best.path) && !nested(&best.path, &c.path));
        out.push(best.path.clone());
    }
    out
}

/// Whether the owner path `inner` is `outer` or lies inside it.
fn nested(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// `inner` as the one property [`WRAPPER_KEY`] of an object: how a root that
/// is not an object goes on the wire.
pub(super) fn wrap(inner: Value) -> Value {
    json!({
        "type": "object",
        "properties": { WRAPPER_KEY: inner },
        "required": [WRAPPER_KEY],
        "additionalProperties": false,
    })
}

/// `step`, after the answer is taken out of its [`wrap`]per.
pub(super) fn unwrap(step: Step) -> Step {
    Step::Unwrap {
        key: WRAPPER_KEY.to_string(),
        then: Box::new(step),
    }
}

#[cfg(test)]
mod tests {
    use super::nested;

    #[test]
    fn nesting_is_by_whole_path_segments() {
        assert!(nested("/properties/a", "/properties/a"));
        assert!(nested("/properties/a/items", "/properties/a"));
        assert!(!nested("/properties/ab", "/properties/a"));
        assert!(!nested("/properties/a", "/properties/a/items"));
    }
}

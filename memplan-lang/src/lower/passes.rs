//! The passes after the statements, over the whole model, in this order: `pad`, resolving
//! `in place of`, leaving out what depends on an error, element types hidden by generated
//! names, sizes along in-place chains, and at least one region. Each is linear in the
//! number of buffers. Each pass that needs another before it says which, and why; a
//! buffer's standing ([`super::model::Standing`]) changes only through
//! [`super::model::BufferRecord::exclude`], and no pass after [`exclude_consequences`]
//! leaves a buffer out.

use memplan_planner::{DEFAULT_REGION_ALIGN, Placement, align_up};
use syn::Type;

use super::context::Lowering;
use super::model::{Cause, ElemInfo, Model, RegionRecord};

/// `pad`: each such buffer's size rounded up to its alignment. Runs after the statements
/// (it needs every region's alignment), before [`inherit_sizes`] (an in-place buffer takes
/// its source's padded size) and [`exclude_consequences`] (a size that cannot be padded
/// leaves the buffer out, and what is in place of it).
pub(super) fn pad(cx: &mut Lowering<'_>) {
    for i in 0..cx.model.buffers.len() {
        if !cx.model.buffers[i].declared.pad {
            continue;
        }
        let b = &cx.model.buffers[i].buffer;
        let regions = &cx.model.regions;
        // A buffer without `in` is padded to the largest alignment it can get: its
        // region's is known only once the planner chooses one.
        let align = match (b.align, b.placement) {
            (Some(a), _) => a,
            (None, Placement::In(r)) => regions[r].region.align,
            (None, Placement::Anywhere) => regions
                .iter()
                .map(|r| r.region.align)
                .max()
                .unwrap_or(DEFAULT_REGION_ALIGN),
        }
        .max(b.min_align);
        match align_up(b.size, align) {
            Some(s) => cx.model.buffers[i].buffer.size = s,
            None => {
                let message = format!(
                    "buffer `{}`: `pad` rounds {} bytes up to a multiple of its alignment ({align}), which is more than 2^64 - 1 bytes",
                    b.name, b.size
                );
                let record = &mut cx.model.buffers[i];
                record.exclude(Cause::Pad);
                let span = record.spans.size;
                cx.diags.at(span, message);
            }
        }
    }
}

/// `in place of OTHER`: OTHER's index, or an error (no such buffer, or itself). Runs after
/// the statements (OTHER may be declared after the buffer), before the passes that follow
/// the chains it links ([`exclude_consequences`], [`inherit_sizes`]).
pub(super) fn resolve_in_place(cx: &mut Lowering<'_>) {
    for i in 0..cx.model.buffers.len() {
        let Some(src) = cx.model.buffers[i].declared.in_place_of.clone() else {
            continue;
        };
        match cx.buffer_by_name.get(&src.to_string()) {
            Some(&s) if s != i => cx.model.buffers[i].buffer.in_place_of = Some(s),
            Some(_) => {
                cx.model.buffers[i].exclude(Cause::InPlaceOf);
                cx.diags.at(
                    src.span(),
                    format!("buffer `{src}` cannot be in place of itself"),
                );
            }
            None => {
                cx.model.buffers[i].exclude(Cause::InPlaceOf);
                let wanted = src.to_string();
                let hint = crate::similar::did_you_mean(
                    &mut cx.hints_left,
                    &wanted,
                    cx.model.buffers.iter().map(|r| r.buffer.name.as_str()),
                );
                cx.diags.at(
                    src.span(),
                    format!("`in place of {src}`: there is no buffer `{src}`{hint}"),
                );
            }
        }
    }
}

/// A buffer in a region that did not parse, or in place of a buffer not planned (directly
/// or along its chain), is left out too: its errors would be consequences, not news. Runs
/// after every pass that leaves a buffer out (the statements, [`pad`],
/// [`resolve_in_place`], which gives the chains): it carries all of them along the chains.
pub(super) fn exclude_consequences(model: &mut Model) {
    // A spilled buffer's region depends on every region's capacity: with a region that did
    // not parse (no capacity), where it goes would be a consequence too.
    let any_broken = model.regions.iter().any(RegionRecord::is_broken);
    for record in &mut model.buffers {
        let broken = match record.buffer.placement {
            Placement::In(r) => model.regions[r].is_broken(),
            Placement::Anywhere => any_broken,
        };
        if broken {
            record.exclude(Cause::BrokenRegion);
        }
    }
    let parent: Vec<Option<usize>> = model.buffers.iter().map(|r| r.buffer.in_place_of).collect();
    let own: Vec<bool> = model
        .buffers
        .iter()
        .map(|r| !r.standing.planned())
        .collect();
    let along = along_chains(&parent, &own, |a, b| a || b, false);
    for (record, left_out) in model.buffers.iter_mut().zip(along) {
        if left_out {
            record.exclude(Cause::Source);
        }
    }
}

/// A user element type written as a bare name would resolve, inside the generated module,
/// to a generated type of the same name: say so rather than fail obscurely. Runs after the
/// statements, when every generated name is claimed.
pub(super) fn check_element_names(cx: &mut Lowering<'_>) {
    for i in 0..cx.model.buffers.len() {
        let ElemInfo::User { ty, .. } = &cx.model.buffers[i].elem else {
            continue;
        };
        let Type::Path(p) = &**ty else { continue };
        if p.qself.is_some() {
            continue;
        }
        let Some(id) = p.path.get_ident() else {
            continue;
        };
        let (n, span) = (id.to_string(), id.span());
        let buffer = &cx.model.buffers[i].buffer.name;
        if let Some(owner) = cx.owner_of(&n) {
            let kind = if owner.starts_with("region") {
                "region"
            } else {
                "buffer"
            };
            let message = format!(
                "element type `{n}` of buffer `{buffer}` has the name of the type generated for {owner}, which hides it inside the plan's module: write its path (`crate::...::{n}`) or rename the {kind}"
            );
            cx.diags.at(span, message);
        } else if n == "Plan" {
            cx.diags.at(span, "element type `Plan` is hidden by the plan's own `Plan` type: write its path (`crate::...::Plan`)");
        }
    }
}

/// An in-place buffer without a size takes its source's, following the chain to the first
/// buffer that has one, whatever the declaration order. (The planner decides the region:
/// the one any member of the chain names.) Runs after [`resolve_in_place`] (the chains)
/// and [`pad`] (the sizes taken are padded).
pub(super) fn inherit_sizes(model: &mut Model) {
    let parent: Vec<Option<usize>> = model
        .buffers
        .iter()
        .map(|r| {
            if r.declared.size_given {
                None
            } else {
                r.buffer.in_place_of
            }
        })
        .collect();
    // A chain that closes on itself with no size anywhere keeps 0 bytes (the planner
    // reports the cycle).
    let own: Vec<Option<u64>> = model
        .buffers
        .iter()
        .zip(&parent)
        .map(|(r, p)| p.is_none().then_some(r.buffer.size))
        .collect();
    let sizes = along_chains(&parent, &own, |mine, up| mine.or(up), None);
    for (record, size) in model.buffers.iter_mut().zip(sizes) {
        record.buffer.size = size.unwrap_or(0);
    }
}

/// At least one region.
pub(super) fn require_a_region(cx: &mut Lowering<'_>) {
    if cx.model.regions.is_empty() {
        cx.diags.at(
            cx.model.name.span(),
            "the plan declares no region: add `region NAME: SIZE;`",
        );
    }
}

/// For every node of the forest (and cycles) given by `parent` links, `own[i]` combined
/// with the result of its parent, up to the root: `join(own[i], result[parent[i]])`. On a
/// cycle every member gets `join` over the whole cycle, starting from `cycle_start`. Linear
/// in the number of nodes: each is visited once.
fn along_chains<T: Copy>(
    parent: &[Option<usize>],
    own: &[T],
    join: impl Fn(T, T) -> T,
    cycle_start: T,
) -> Vec<T> {
    let n = parent.len();
    // 0: not visited; 1: on the current path; 2: done.
    let mut state = vec![0u8; n];
    let mut result: Vec<T> = own.to_vec();
    let mut path: Vec<usize> = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut cur = start;
        // Walk up until a done node, a root, or a node on this path (a cycle).
        let above: Option<T> = loop {
            if state[cur] == 2 {
                break Some(result[cur]);
            }
            if state[cur] == 1 {
                // A cycle: from `cur` to the end of the path.
                let at = path.iter().position(|&x| x == cur).unwrap_or(0);
                let all = path[at..]
                    .iter()
                    .fold(cycle_start, |acc, &x| join(own[x], acc));
                for &x in &path[at..] {
                    result[x] = all;
                    state[x] = 2;
                }
                path.truncate(at);
                break Some(all);
            }
            state[cur] = 1;
            path.push(cur);
            match parent[cur] {
                Some(p) if p < n => cur = p,
                _ => break None,
            }
        };
        // Unwind: each node joins its own value with the one above it.
        let mut up = above;
        while let Some(x) = path.pop() {
            let value = match up {
                Some(u) if parent[x].is_some() => join(own[x], u),
                _ => own[x],
            };
            result[x] = value;
            state[x] = 2;
            up = Some(value);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::along_chains;

    #[test]
    fn along_chains_joins_up_to_the_root_and_around_cycles() {
        // 0 <- 1 <- 2; 3 alone; 4 <-> 5 (a cycle) <- 6.
        let parent = [None, Some(0), Some(1), None, Some(5), Some(4), Some(4)];
        let own = [true, false, false, false, false, true, false];
        let or = along_chains(&parent, &own, |a, b| a || b, false);
        assert_eq!(or, [true, true, true, false, true, true, true]);
        let own = [false, false, true, false, false, false, false];
        let or = along_chains(&parent, &own, |a, b| a || b, false);
        assert_eq!(or, [false, false, true, false, false, false, false]);
        // Sizes: the first size up the chain; none on the cycle.
        let parent = [None, Some(0), Some(1), Some(4), Some(3)];
        let own = [Some(64), None, None, None, None];
        let sizes = along_chains(&parent, &own, |mine, up| mine.or(up), None);
        assert_eq!(sizes, [Some(64), Some(64), Some(64), None, None]);
    }

    #[test]
    fn along_chains_is_linear_on_a_long_chain() {
        // 100,000 links, each in place of the one before: one visit each.
        let n = 100_000;
        let parent: Vec<Option<usize>> = (0..n).map(|i: usize| i.checked_sub(1)).collect();
        let mut own = vec![None; n];
        own[0] = Some(7u64);
        let sizes = along_chains(&parent, &own, |mine, up| mine.or(up), None);
        assert!(sizes.iter().all(|&s| s == Some(7)));
    }
}

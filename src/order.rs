//! Stable sorting of host-side lists (file headers, adapter lists, dims, shader variants)
//! through one instantiation of the standard library's sort: each `sort_by` on its own element
//! type and closure compiles the whole sort again (4-7 KB of the npm .wasm each), and none of
//! these lists is long or hot. The kernels' own sorts (`device/cpu/sort.rs`) keep theirs.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub(crate) fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_positions(&mut order, &|a, b| cmp(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// The one instantiation: positions ordered by a comparator behind a reference.
#[inline(never)]
fn sort_positions(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

#[cfg(test)]
mod tests {
    use super::sort_by;

    #[test]
    fn sorts_stably() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (0, 'd'), (1, 'e')];
        sort_by(&mut v, |a, b| a.0.cmp(&b.0));
        assert_eq!(v, vec![(0, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]);
        let mut s = vec!["b".to_string(), "a".into(), "c".into()];
        sort_by(&mut s, |a, b| b.cmp(a));
        assert_eq!(s, ["c", "b", "a"]);
        let mut e: Vec<u8> = Vec::new();
        sort_by(&mut e, |a, b| a.cmp(b));
        assert!(e.is_empty());
    }
}

//! The searches of one update for new pairs: each changed proxy's query of
//! the trees, or, with the descent, one self-descent of the dynamic BVH
//! pruned to the changed leaves (opened at its top into tasks for the
//! parallel update).
//!
//! Each new pair is reported once, canonical `(min, max)`: a pair of two
//! changed proxies that search for each other by the lower slot's search
//! only, a pair of the descent by the descent only. A pair whose fat boxes
//! overlapped at the last update is not new (the pair set holds it, or the
//! filters turned it away when it began), unless one proxy is fresh.

use super::tree;
use super::view::View;
use super::{Change, ChangeEntry};
use crate::pairs::Pair;
use crate::static_bvh::MarkedScratch;
#[cfg(feature = "parallel")]
use crate::static_bvh::MarkedTask;
use crate::ProxyId;
use core::ops::ControlFlow;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb};

/// Which changed proxies a search reports among its hits (an unchanged one
/// searches nothing, so its pairs are always reported).
#[derive(Clone, Copy)]
enum Rule {
    /// The changed ones of a higher slot: a changed hit searches for this
    /// proxy too, so the lower slot's search reports the pair.
    Mutual,
    /// None: each of them finds this proxy by a search that reports every hit.
    Unchanged,
    /// All of them: they do not search for this proxy.
    All,
}

impl<T> View<'_, T> {
    /// The pair of the live proxies in slots `a != b`, whose fat boxes
    /// overlap now and were `old_a` and `old_b` at the last update: appended
    /// to `out` (canonical) when it is new (the old boxes did not overlap,
    /// or one is fresh), the groups interact and `predicate` accepts it.
    /// Most hits are persistent neighbours (or, in a sparse world, the proxy
    /// itself), so the two entries (a cache miss each on a large world) are
    /// read only for a new pair.
    #[inline]
    fn offer<F>(&self, a: u32, old_a: Option<Aabb>, b: u32, old_b: Option<Aabb>, predicate: &mut F, out: &mut Vec<Pair>)
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if let (Some(oa), Some(ob)) = (old_a, old_b) {
            if intersects_aabb_aabb(&oa, &ob) {
                return; // in the set already (or filtered out when it began)
            }
        }
        let (ea, eb) = (self.proxies.by_key(a as usize), self.proxies.by_key(b as usize));
        if !ea.options.groups.interacts_with(eb.options.groups) {
            return;
        }
        let (ia, ib) = (self.proxies.id_of(a as usize), self.proxies.id_of(b as usize));
        let (lo, hi, da, db) = if ia < ib { (ia, ib, ea, eb) } else { (ib, ia, eb, ea) };
        if predicate(lo, &da.data, hi, &db.data) {
            out.push((lo, hi));
        }
    }

    /// With the descent, appends to `out` the new pairs of two dynamic
    /// proxies of the dynamic BVH, one of them changed (marked by `prepare`):
    /// one pruned self-descent finds each such overlapping pair once.
    pub(super) fn marked_pairs<F>(&self, scratch: &mut MarkedScratch, predicate: &mut F, out: &mut Vec<Pair>)
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if self.descent {
            self.dynamic.visit_marked_pairs(scratch, |a, fat_a, b, fat_b| {
                self.offer(a, self.old_fat(a, fat_a), b, self.old_fat(b, fat_b), predicate, out);
            });
        }
    }

    /// [`marked_pairs`](Self::marked_pairs)' first part for threads: opens
    /// the descent's top into `scratch.open` (up to four levels down, until
    /// it holds `min_tasks` tasks), appending the pairs found on the way.
    #[cfg(feature = "parallel")]
    pub(super) fn open_marked_pairs<F>(
        &self,
        scratch: &mut MarkedScratch,
        min_tasks: usize,
        predicate: &mut F,
        out: &mut Vec<Pair>,
    ) where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if self.descent {
            self.dynamic.open_marked_pairs(scratch, min_tasks, |a, fat_a, b, fat_b| {
                self.offer(a, self.old_fat(a, fat_a), b, self.old_fat(b, fat_b), predicate, out);
            });
        } else {
            scratch.open.clear();
        }
    }

    /// Appends to `out` the new pairs found below the descent's `tasks`
    /// (from [`open_marked_pairs`](Self::open_marked_pairs)).
    #[cfg(feature = "parallel")]
    pub(super) fn marked_tasks<F>(
        &self,
        tasks: impl Iterator<Item = MarkedTask>,
        scratch: &mut MarkedScratch,
        predicate: &mut F,
        out: &mut Vec<Pair>,
    ) where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        self.dynamic.visit_marked_tasks(tasks, scratch, |a, fat_a, b, fat_b| {
            self.offer(a, self.old_fat(a, fat_a), b, self.old_fat(b, fat_b), predicate, out);
        });
    }

    /// Appends to `out` the new pairs that the changed proxy `changes[change]`
    /// forms, canonical: a static proxy with the dynamic ones, a dynamic one
    /// with the static ones and (without the descent, or when it is pending)
    /// with the dynamic ones. A pair of two changed proxies that search for
    /// each other is reported by the lower slot's search only.
    pub(super) fn query<F>(&self, change: usize, predicate: &mut F, out: &mut Vec<Pair>)
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        let ChangeEntry { id: a, change: kind, .. } = self.changes[change];
        let index = a.index();
        let record = &self.records[index as usize];
        let (query, is_static, pending) = (record.fat, record.is_static, record.leaf == tree::NONE);
        let old_a = match kind {
            Change::Moved { old_fat } => Some(old_fat),
            _ => None,
        };
        let mut visit = |slot: u32, fat: &Aabb, rule: Rule| {
            let skip = slot == index
                || match rule {
                    Rule::Mutual => slot < index && self.is_changed(slot),
                    Rule::Unchanged => self.is_changed(slot),
                    Rule::All => false,
                };
            if !skip {
                self.offer(index, old_a, slot, self.old_fat(slot, fat), predicate, out);
            }
            ControlFlow::Continue(())
        };
        if is_static {
            // Static proxies never pair with each other; every changed
            // dynamic proxy searches the static tree.
            let _ = self.dynamic.visit_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
            return;
        }
        let _ = self.fixed.visit_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
        if !self.descent {
            let _ = self.dynamic.visit_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
        } else if pending {
            // A pending proxy is not in the marked self-descent: it finds
            // its pairs with the BVH's proxies, changed or not.
            let _ = self.dynamic.visit_built_overlaps(&query, |s, f| visit(s, f, Rule::All));
            let _ = self.dynamic.visit_pending_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
        } else {
            // A changed pending proxy finds this one (above); an unchanged
            // one searches nothing.
            let _ = self.dynamic.visit_pending_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Unchanged));
        }
    }
}

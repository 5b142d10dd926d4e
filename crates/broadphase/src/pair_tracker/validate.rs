//! The tracker's consistency check: trees against proxies, then the pair
//! set and its exact pairs against the boxes and filters.

use super::PairTracker;
use crate::pairs::slots_of;
use crate::{TreeStats, ValidationError};
use proxima_narrowphase::intersects_aabb_aabb;

impl<T> PairTracker<T> {
    /// Validates the trees against the proxies, then the pair set: sorted,
    /// canonical, unique, live, overlapping, never static-static, groups
    /// interacting. Call it right after an update (between updates the set
    /// is allowed to lag). The stats are the dynamic tree's.
    pub fn validate(&self) -> Result<TreeStats, ValidationError> {
        let fail = |what: String| Err(ValidationError(what));
        let (mut statics, mut dynamics) = (Vec::new(), Vec::new());
        for (id, entry) in self.proxies.iter() {
            let record = &self.records[id.index() as usize];
            if record.is_static != entry.options.is_static {
                return fail(format!("proxy {id:?}: its record's static flag disagrees with its options"));
            }
            if !record.fat.contains_aabb(&self.tights[id.index() as usize].tight) {
                return fail(format!("proxy {id:?}: tight box outside its fat box"));
            }
            if entry.options.is_static { &mut statics } else { &mut dynamics }.push(id.index());
        }
        self.fixed.check(&mut statics, &self.records).map_err(|e| ValidationError(format!("static tree: {e}")))?;
        self.dynamic.check(&mut dynamics, &self.records).map_err(|e| ValidationError(format!("dynamic tree: {e}")))?;
        for w in self.pairs.windows(2) {
            if w[0] >= w[1] {
                return fail(format!("pairs not sorted or repeated at {:?}", slots_of(w[1])));
            }
        }
        for (a, b) in self.pairs() {
            let (Some(ea), Some(eb)) = (self.proxies.get(a), self.proxies.get(b)) else {
                return fail(format!("pair {a:?}, {b:?} names a removed proxy"));
            };
            let (ra, rb) = (&self.records[a.index() as usize], &self.records[b.index() as usize]);
            let overlap = intersects_aabb_aabb(&ra.fat, &rb.fat);
            if a >= b
                || !overlap
                || (ea.options.is_static && eb.options.is_static)
                || !ea.options.groups.interacts_with(eb.options.groups)
            {
                return fail(format!("pair {a:?}, {b:?} should not be in the set"));
            }
        }
        let exact: Vec<u64> = self
            .pairs
            .iter()
            .copied()
            .filter(|&key| {
                let (a, b) = slots_of(key);
                intersects_aabb_aabb(&self.tights[a as usize].tight, &self.tights[b as usize].tight)
            })
            .collect();
        if exact != self.exact {
            return fail("the exact pairs are not the pairs whose tight boxes overlap".into());
        }
        let n = dynamics.len();
        let stats = self.dynamic.stats();
        Ok(stats.unwrap_or(TreeStats { leaves: n, nodes: 0, height: 0, sah_cost: 0.0 }))
    }
}

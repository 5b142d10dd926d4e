//! Serde for [`PairTracker`]: the proxies, their boxes, the pair set and the
//! changes not yet seen by an update. The trees are not written: they are
//! built again on load, so a payload cannot smuggle in a broken tree, and a
//! payload that breaks an invariant (a tight box outside its fat box, a pair
//! of removed proxies, tables of the wrong length) is rejected.

use super::{Change, Entry, PairTracker, Record, TightRecord};
use crate::pairs::Pair;
use crate::slots::Slots;
use crate::{FatBoxOptions, ProxyId};
use proxima_narrowphase::Aabb;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A proxy's two records as one, the payload's format (the layout of the
/// tables is an implementation detail).
#[derive(Clone, Copy, Serialize, Deserialize)]
struct SavedRecord {
    fat: Aabb,
    tight: Aabb,
    stamp: u32,
    change: u32,
    leaf: u32,
    is_static: bool,
}

#[derive(Serialize)]
struct SnapshotRef<'a, T> {
    options: &'a FatBoxOptions,
    proxies: &'a Slots<Entry<T>>,
    records: Vec<SavedRecord>,
    pairs: Vec<Pair>,
    changes: Vec<(ProxyId, Change)>,
}

#[derive(Deserialize)]
struct Snapshot<T> {
    options: FatBoxOptions,
    proxies: Slots<Entry<T>>,
    records: Vec<SavedRecord>,
    pairs: Vec<Pair>,
    changes: Vec<(ProxyId, Change)>,
}

impl<T: Serialize> Serialize for PairTracker<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SnapshotRef {
            options: &self.options,
            proxies: &self.proxies,
            records: self
                .records
                .iter()
                .zip(&self.tights)
                .map(|(r, t)| SavedRecord {
                    fat: r.fat,
                    tight: t.tight,
                    stamp: t.stamp,
                    change: t.change,
                    leaf: r.leaf,
                    is_static: r.is_static,
                })
                .collect(),
            pairs: self.pairs().collect(),
            changes: self.changes.iter().map(|e| (e.id, e.change)).collect(),
        }
        .serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for PairTracker<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let snapshot = Snapshot::<T>::deserialize(deserializer)?;
        Self::from_snapshot(snapshot).map_err(serde::de::Error::custom)
    }
}

impl<T> PairTracker<T> {
    fn from_snapshot(s: Snapshot<T>) -> Result<Self, String> {
        let mut tracker = Self::new_with(s.options).map_err(|e| e.to_string())?;
        let n = s.records.len();
        for (id, entry) in s.proxies.iter() {
            let slot = id.index() as usize;
            if slot >= n {
                return Err(format!("proxy {id:?} has no boxes"));
            }
            if !s.records[slot].fat.contains_aabb(&s.records[slot].tight) {
                return Err(format!("proxy {id:?}: tight box outside its fat box"));
            }
            tracker.tree_mut(&entry.options).add(id.index());
        }
        let statics: Vec<(usize, bool)> =
            s.proxies.iter().map(|(id, e)| (id.index() as usize, e.options.is_static)).collect();
        tracker.proxies = s.proxies;
        // The leaves and static flags are not trusted: set from the options,
        // the leaves by the build below.
        tracker.records =
            s.records.iter().map(|r| Record { fat: r.fat, leaf: super::tree::NONE, is_static: r.is_static }).collect();
        tracker.tights = s.records.iter().map(|r| TightRecord { tight: r.tight, stamp: 0, change: 0 }).collect();
        tracker.changed = vec![0; n.div_ceil(64)];
        tracker.renewed = vec![0; n.div_ceil(64)];
        tracker.touched = vec![0; n.div_ceil(64)];
        for (slot, is_static) in statics {
            tracker.records[slot].is_static = is_static;
        }
        for (id, change) in s.changes {
            if id.index() as usize >= n {
                return Err(format!("change of unknown proxy {id:?}"));
            }
            tracker.record(id, change);
        }
        // The pair set is stored as slot pairs: a pair must name the
        // proxies its slots held at the last update (the slots' occupants, or
        // for a slot changed since, its change's `before`).
        for &(a, b) in &s.pairs {
            let (sa, sb) = (a.index(), b.index());
            if sa as usize >= n || sb as usize >= n || sa >= sb || tracker.held(sa) != a || tracker.held(sb) != b {
                return Err(format!("pair {a:?}, {b:?} does not name its slots' proxies"));
            }
        }
        tracker.pairs = s.pairs.iter().map(crate::pairs::pair_key).collect();
        if tracker.pairs.windows(2).any(|w| w[0] >= w[1]) {
            return Err("pairs not sorted or repeated".into());
        }
        tracker.exact = tracker
            .pairs
            .iter()
            .copied()
            .filter(|&key| {
                let (a, b) = crate::pairs::slots_of(key);
                let (ra, rb) = (&tracker.tights[a as usize], &tracker.tights[b as usize]);
                proxima_narrowphase::intersects_aabb_aabb(&ra.tight, &rb.tight)
            })
            .collect();
        tracker.rebuild();
        if tracker.changes.is_empty() {
            tracker.validate().map_err(|e| e.0)?;
        }
        Ok(tracker)
    }
}

//! Sort and sweep: the boxes' intervals on one axis, sorted by their start.

use crate::pairs::{sort_pairs, Pair};
use crate::slots::Slots;
use crate::{BroadPhase, BroadPhaseError, ProxyId, RayControl, TreeStats, ValidationError};
use core::ops::ControlFlow;
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, RayInterval};
use proxima_narrowphase::{Aabb, Point, Ray, Real, Vector};

/// How [`SweepAndPrune::update`] re-sorts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SapMode {
    /// Each update picks the axis along which the box centres spread most
    /// (largest variance) and sorts all intervals from scratch: O(n log n).
    #[default]
    Rebuild,
    /// The sorted order is kept across updates and repaired by insertion
    /// sort, which costs O(n + k) for k swaps: nearly linear when boxes move
    /// little between frames (temporal coherence, Baraff 1992; Cohen et al.,
    /// I-COLLIDE 1995). The axis is re-chosen only when another axis's centre
    /// spread becomes twice the current one's.
    Persistent,
}

/// One box as seen by the sweep: its interval `[lo, hi]` on the sweep axis,
/// its bounds on the two other axes, and its slot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    lo: Real,
    hi: Real,
    /// Min on the other axes, `(axis + 1) % 3` then `(axis + 2) % 3`.
    min: [Real; 2],
    /// Max on the other axes, same order.
    max: [Real; 2],
    key: u32,
}

impl Entry {
    fn new(aabb: &Aabb, axis: usize, key: u32) -> Self {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let (lo, hi) = (aabb.min(), aabb.max());
        Self { lo: lo[axis], hi: hi[axis], min: [lo[u], lo[v]], max: [hi[u], hi[v]], key }
    }

    /// Overlap on the two other axes (the sweep axis is checked by the caller).
    #[inline]
    fn overlaps_across(&self, other: &Entry) -> bool {
        (self.min[0] <= other.max[0])
            & (other.min[0] <= self.max[0])
            & (self.min[1] <= other.max[1])
            & (other.min[1] <= self.max[1])
    }
}

/// A proxy's box and user data.
#[derive(Clone, Debug)]
struct SapProxy<T> {
    aabb: Aabb,
    data: T,
}

/// Sort-and-sweep broadphase: every box's interval on one axis, sorted by
/// start; all pairs come from one sweep that compares each interval with the
/// following ones until they start after it ends, then checks the two other
/// axes.
///
/// Mutations (`insert`, `remove`, `move_proxy`) are O(1) and leave the order
/// stale; [`update`](Self::update) re-sorts (see [`SapMode`]). Queries are
/// always exact: on a stale order they fall back to a slower path (a sorted
/// copy for pairs, no early exit for box queries). Good for scenes whose
/// boxes spread along one axis and move coherently; a uniform 3D cloud makes
/// each sweep see `n * width / side` intervals per box.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::{BroadPhase, SapMode, SweepAndPrune};
/// use proxima::narrowphase::{Aabb, Point};
/// let mut sap = SweepAndPrune::new(SapMode::Persistent);
/// let a = sap.insert(Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0)), ());
/// let b = sap.insert(Aabb::new(Point::new(0.5, 0.5, 0.5), Point::new(2.0, 2.0, 2.0)), ());
/// sap.update();
/// let mut pairs = Vec::new();
/// sap.pairs_into(&mut pairs);
/// assert_eq!(pairs, vec![(a, b)]);
/// ```
#[derive(Clone, Debug)]
pub struct SweepAndPrune<T = ()> {
    proxies: Slots<SapProxy<T>>,
    /// One entry per proxy; sorted by `lo` unless `dirty`.
    entries: Vec<Entry>,
    /// Per slot: the position of its entry.
    position: Vec<u32>,
    axis: usize,
    mode: SapMode,
    /// True when the order may be stale (a mutation since the last update).
    dirty: bool,
    /// True once an axis was chosen (persistent mode keeps it).
    has_axis: bool,
}

impl<T> Default for SweepAndPrune<T> {
    fn default() -> Self {
        Self::new(SapMode::default())
    }
}

impl<T> SweepAndPrune<T> {
    /// An empty structure re-sorting by `mode`.
    pub fn new(mode: SapMode) -> Self {
        Self {
            proxies: Slots::default(),
            entries: Vec::new(),
            position: Vec::new(),
            axis: 0,
            mode,
            dirty: false,
            has_axis: false,
        }
    }

    /// The re-sorting mode.
    pub fn mode(&self) -> SapMode {
        self.mode
    }

    /// The sweep axis (0 = x, 1 = y, 2 = z).
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// True when a mutation happened since the last [`update`](Self::update).
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Adds a proxy and returns its id.
    ///
    /// # Panics
    /// With more than 2^32 proxies at once.
    pub fn insert(&mut self, aabb: Aabb, user_data: T) -> ProxyId {
        let id = self.proxies.insert(SapProxy { aabb, data: user_data }, u32::MAX);
        let key = id.index() as usize;
        if self.position.len() <= key {
            self.position.resize(key + 1, 0);
        }
        self.position[key] = self.entries.len() as u32;
        self.entries.push(Entry::new(&aabb, self.axis, id.index()));
        self.dirty = true;
        id
    }

    /// Removes a proxy and returns its user data; a stale id is rejected.
    pub fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        let proxy = self.proxies.remove(id)?;
        let pos = self.position[id.index() as usize] as usize;
        self.entries.swap_remove(pos);
        if let Some(moved) = self.entries.get(pos) {
            self.position[moved.key as usize] = pos as u32;
        }
        self.dirty = true;
        Ok(proxy.data)
    }

    /// Tells the structure that proxy `id` now has box `aabb` after moving by
    /// `displacement` this step: the box and its endpoints are replaced (sorted
    /// again at the next [`update`](Self::update)). The signature is
    /// [`DynamicTree::move_proxy`](crate::DynamicTree::move_proxy)'s; the
    /// displacement is only checked (this structure keeps exact boxes, so it
    /// predicts no motion) and the result is always `Ok(true)` (the stored box
    /// changed). A stale id or a NaN/infinite displacement is rejected and
    /// nothing changes.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        let proxy = self.proxies.try_get_mut(id)?;
        if !displacement.iter().all(|d| d.is_finite()) {
            return Err(BroadPhaseError::InvalidDisplacement);
        }
        proxy.aabb = aabb;
        let pos = self.position[id.index() as usize] as usize;
        self.entries[pos] = Entry::new(&aabb, self.axis, id.index());
        self.dirty = true;
        Ok(true)
    }

    /// A proxy's box; `None` for a stale id.
    pub fn aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.proxies.get(id).map(|p| p.aabb)
    }

    /// A proxy's user data; `None` for a stale id.
    pub fn get(&self, id: ProxyId) -> Option<&T> {
        self.proxies.get(id).map(|p| &p.data)
    }

    /// A proxy's user data, mutably; `None` for a stale id.
    pub fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        self.proxies.get_mut(id).map(|p| &mut p.data)
    }

    /// True when `id` names a live proxy.
    pub fn contains(&self, id: ProxyId) -> bool {
        self.proxies.contains(id)
    }

    /// Re-sorts the intervals after mutations (see [`SapMode`]).
    pub fn update(&mut self) {
        match self.mode {
            SapMode::Rebuild => {
                self.axis = self.widest_axis().0;
                self.rewrite_entries();
                // Ties broken by slot: the order does not depend on history.
                self.entries.sort_unstable_by(|a, b| a.lo.total_cmp(&b.lo).then(a.key.cmp(&b.key)));
                self.reindex();
            }
            SapMode::Persistent => {
                let (best, spreads) = self.widest_axis();
                if !self.has_axis || spreads[best] > 2.0 * spreads[self.axis] {
                    self.axis = best;
                    self.rewrite_entries();
                }
                self.insertion_sort();
            }
        }
        self.has_axis = true;
        self.dirty = false;
    }

    /// The axis of largest centre variance, and the three variances (`f64`,
    /// two passes, so centres of ~1e38 neither overflow nor cancel).
    fn widest_axis(&self) -> (usize, [f64; 3]) {
        let n = self.entries.len().max(1) as f64;
        let mut mean = [0.0f64; 3];
        for (_, p) in self.proxies.iter() {
            let c = centre2(&p.aabb);
            for a in 0..3 {
                mean[a] += c[a] / n;
            }
        }
        let mut var = [0.0f64; 3];
        for (_, p) in self.proxies.iter() {
            let c = centre2(&p.aabb);
            for a in 0..3 {
                var[a] += (c[a] - mean[a]) * (c[a] - mean[a]) / n;
            }
        }
        let best = (0..3).max_by(|&a, &b| var[a].total_cmp(&var[b]).then(b.cmp(&a))).unwrap_or(0);
        (best, var)
    }

    /// Rebuilds every entry for the current axis, keeping the entry order.
    fn rewrite_entries(&mut self) {
        let axis = self.axis;
        for e in self.entries.iter_mut() {
            *e = Entry::new(&self.proxies.by_key(e.key as usize).aabb, axis, e.key);
        }
    }

    /// Stable insertion sort by `lo`: O(n + swaps) on nearly sorted input.
    fn insertion_sort(&mut self) {
        for i in 1..self.entries.len() {
            let e = self.entries[i];
            let mut j = i;
            while j > 0 && self.entries[j - 1].lo > e.lo {
                self.entries[j] = self.entries[j - 1];
                self.position[self.entries[j].key as usize] = j as u32;
                j -= 1;
            }
            if j != i {
                self.entries[j] = e;
                self.position[e.key as usize] = j as u32;
            }
        }
    }

    fn reindex(&mut self) {
        for (i, e) in self.entries.iter().enumerate() {
            self.position[e.key as usize] = i as u32;
        }
    }

    /// The id of the proxy in slot `key`.
    #[inline]
    fn id(&self, key: u32) -> ProxyId {
        self.proxies.id_of(key as usize)
    }

    /// The sweep over `entries` sorted by `lo`: unsorted canonical pairs into `out`.
    fn sweep(&self, entries: &[Entry], out: &mut Vec<Pair>) {
        for (i, e) in entries.iter().enumerate() {
            for f in &entries[i + 1..] {
                if f.lo > e.hi {
                    break; // sorted by lo: every later interval starts after e ends
                }
                if e.overlaps_across(f) {
                    let (a, b) = (self.id(e.key), self.id(f.key));
                    out.push(if a < b { (a, b) } else { (b, a) });
                }
            }
        }
    }
}

/// `min + max` per axis, in `f64`: twice the centre, finite for any valid box.
fn centre2(aabb: &Aabb) -> [f64; 3] {
    let (lo, hi): (&Point, &Point) = (aabb.min(), aabb.max());
    [lo.x as f64 + hi.x as f64, lo.y as f64 + hi.y as f64, lo.z as f64 + hi.z as f64]
}

impl<T> BroadPhase for SweepAndPrune<T> {
    type Id = ProxyId;

    fn len(&self) -> usize {
        self.proxies.len()
    }

    fn visit_overlaps<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(ProxyId) -> ControlFlow<()>,
    {
        let q = Entry::new(aabb, self.axis, 0);
        for e in &self.entries {
            if e.lo > q.hi {
                if !self.dirty {
                    break; // sorted: the rest start after the query ends
                }
                continue;
            }
            if q.lo <= e.hi && e.overlaps_across(&q) {
                visitor(self.id(e.key))?;
            }
        }
        ControlFlow::Continue(())
    }

    fn visit_ray<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(ProxyId, Real) -> RayControl,
    {
        let mut pre = PrecomputedRay::new(ray);
        for (id, p) in self.proxies.iter() {
            if let Some(RayInterval { toi_enter: t_enter, .. }) = ray_aabb_interval(&pre, &p.aabb) {
                match visitor(id, t_enter) {
                    RayControl::Continue => {}
                    RayControl::Clip(t) => {
                        if t < pre.max_toi {
                            pre.max_toi = t.max(0.0);
                        }
                    }
                    RayControl::Stop => return,
                }
            }
        }
    }

    fn pairs_into(&self, out: &mut Vec<Pair>) {
        out.clear();
        if self.dirty {
            let mut sorted = self.entries.clone();
            sorted.sort_unstable_by(|a, b| a.lo.total_cmp(&b.lo).then(a.key.cmp(&b.key)));
            self.sweep(&sorted, out);
        } else {
            self.sweep(&self.entries, out);
        }
        sort_pairs(out, &mut Vec::new());
    }

    fn validate(&self) -> Result<TreeStats, ValidationError> {
        let err = |msg: String| Err(ValidationError(msg));
        if self.entries.len() != self.proxies.len() {
            return err(format!("{} entries for {} proxies", self.entries.len(), self.proxies.len()));
        }
        for (i, e) in self.entries.iter().enumerate() {
            let Some(p) = self.proxies.get_key(e.key as usize) else {
                return err(format!("entry {i} names empty slot {}", e.key));
            };
            if self.position[e.key as usize] as usize != i {
                return err(format!("slot {} says position {}, entry is at {i}", e.key, self.position[e.key as usize]));
            }
            if *e != Entry::new(&p.aabb, self.axis, e.key) {
                return err(format!("entry {i} does not match its proxy's box"));
            }
            if !self.dirty && i > 0 && self.entries[i - 1].lo > e.lo {
                return err(format!("entries {} and {i} out of order", i - 1));
            }
        }
        Ok(TreeStats { leaves: self.proxies.len(), ..TreeStats::default() })
    }
}

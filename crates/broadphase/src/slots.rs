//! A slab with a generation per slot: the storage behind every [`ProxyId`].

use crate::{BroadPhaseError, ProxyId};
use slab::Slab;

/// Values keyed by [`ProxyId`]: a `slab` (which reuses freed keys) plus a
/// generation counter per slot, bumped on every removal, so an id kept after
/// its proxy left is detected as stale (Box2D's `b2BodyId` revision).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Slots<T> {
    slab: Slab<T>,
    generations: Vec<u32>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self { slab: Slab::new(), generations: Vec::new() }
    }
}

impl<T> Slots<T> {
    /// Stores `value` and returns its id.
    ///
    /// # Panics
    /// When more than `max_index + 1` values are stored at once.
    pub(crate) fn insert(&mut self, value: T, max_index: u32) -> ProxyId {
        let entry = self.slab.vacant_entry();
        let key = entry.key();
        assert!(key <= max_index as usize, "proxima-broadphase: too many proxies (limit {})", max_index as u64 + 1);
        entry.insert(value);
        if self.generations.len() <= key {
            self.generations.resize(key + 1, 0);
        }
        ProxyId::new(key as u32, self.generations[key])
    }

    /// True when `id` names a live value.
    #[inline]
    pub(crate) fn contains(&self, id: ProxyId) -> bool {
        self.get(id).is_some()
    }

    /// The value of a live id; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get(&self, id: ProxyId) -> Option<&T> {
        let key = id.index() as usize;
        if self.generations.get(key) != Some(&id.generation()) {
            return None;
        }
        self.slab.get(key)
    }

    /// The value of a live id, mutably; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        let key = id.index() as usize;
        if self.generations.get(key) != Some(&id.generation()) {
            return None;
        }
        self.slab.get_mut(key)
    }

    /// Like [`Slots::get`], with the error every structure reports.
    #[inline]
    pub(crate) fn try_get(&self, id: ProxyId) -> Result<&T, BroadPhaseError> {
        self.get(id).ok_or(BroadPhaseError::StaleId(id))
    }

    /// Like [`Slots::get_mut`], with the error every structure reports.
    #[inline]
    pub(crate) fn try_get_mut(&mut self, id: ProxyId) -> Result<&mut T, BroadPhaseError> {
        self.get_mut(id).ok_or(BroadPhaseError::StaleId(id))
    }

    /// Removes a live id's value and bumps its slot's generation.
    pub(crate) fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        if !self.contains(id) {
            return Err(BroadPhaseError::StaleId(id));
        }
        let key = id.index() as usize;
        self.generations[key] = self.generations[key].wrapping_add(1);
        Ok(self.slab.remove(key))
    }

    /// The value in slot `key`, which the caller knows is occupied.
    #[inline]
    pub(crate) fn by_key(&self, key: usize) -> &T {
        &self.slab[key]
    }

    /// The value in slot `key`, mutably, which the caller knows is occupied.
    #[inline]
    pub(crate) fn by_key_mut(&mut self, key: usize) -> &mut T {
        &mut self.slab[key]
    }

    /// The value in slot `key`, if occupied.
    #[inline]
    pub(crate) fn get_key(&self, key: usize) -> Option<&T> {
        self.slab.get(key)
    }

    /// The id of the value in the occupied slot `key`.
    #[inline]
    pub(crate) fn id_of(&self, key: usize) -> ProxyId {
        ProxyId::new(key as u32, self.generations[key])
    }

    /// The generation of every slot, indexed by slot.
    #[inline]
    pub(crate) fn generations(&self) -> &[u32] {
        &self.generations
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.slab.len()
    }

    /// `(id, value)` in ascending slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ProxyId, &T)> + '_ {
        self.slab.iter().map(|(key, v)| (ProxyId::new(key as u32, self.generations[key]), v))
    }

    /// Bytes of heap memory held, for the per-proxy memory report.
    pub(crate) fn heap_bytes(&self) -> usize {
        // A slab entry is the `Entry<T>` enum: T or a free-list link (usize).
        let entry = core::mem::size_of::<T>().max(core::mem::size_of::<usize>()) + core::mem::size_of::<usize>();
        self.slab.capacity() * entry + self.generations.capacity() * 4
    }
}

//! `Slots`: the [`SlotMap`] behind every [`ProxyId`], with the broadphase's
//! errors and its index limits.

use crate::slot_map::{SlotKey, SlotMap};
use crate::{BroadPhaseError, ProxyId};

impl SlotKey for ProxyId {
    #[inline]
    fn from_parts(index: u32, generation: u32) -> Self {
        ProxyId::new(index, generation)
    }

    #[inline]
    fn slot(self) -> u32 {
        self.index()
    }

    #[inline]
    fn slot_generation(self) -> u32 {
        self.generation()
    }
}

/// The proxies of a structure: a [`SlotMap`] keyed by [`ProxyId`] whose
/// lookups report [`BroadPhaseError::StaleId`] (serialized as the slot map).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(transparent))]
pub(crate) struct Slots<T>(SlotMap<ProxyId, T>);

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self(SlotMap::default())
    }
}

impl<T> Slots<T> {
    /// Makes room for `additional` more proxies without reallocating.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
    }

    /// Stores `value` and returns its id.
    ///
    /// # Panics
    /// When more than `max_index + 1` values are stored at once.
    pub(crate) fn insert(&mut self, value: T, max_index: u32) -> ProxyId {
        let key = self.0.next_slot();
        assert!(key <= max_index as usize, "proxima-broadphase: too many proxies (limit {})", max_index as u64 + 1);
        self.0.insert(value)
    }

    /// True when `id` names a live value.
    #[inline]
    pub(crate) fn contains(&self, id: ProxyId) -> bool {
        self.0.contains(id)
    }

    /// The value of a live id; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get(&self, id: ProxyId) -> Option<&T> {
        self.0.get(id)
    }

    /// The value of a live id, mutably; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        self.0.get_mut(id)
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

    /// Removes a live id's value (its slot goes to the head of the free list).
    pub(crate) fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        self.0.remove(id).ok_or(BroadPhaseError::StaleId(id))
    }

    /// The value in slot `key`, which the caller knows is occupied.
    ///
    /// # Panics
    /// When the slot is vacant or out of range.
    #[inline]
    pub(crate) fn by_key(&self, key: usize) -> &T {
        self.0.get_slot(key).unwrap_or_else(|| panic!("slot {key} is vacant"))
    }

    /// The value in slot `key`, mutably, which the caller knows is occupied.
    ///
    /// # Panics
    /// When the slot is vacant or out of range.
    #[inline]
    pub(crate) fn by_key_mut(&mut self, key: usize) -> &mut T {
        self.0.get_slot_mut(key).unwrap_or_else(|| panic!("slot {key} is vacant"))
    }

    /// The value in slot `key`, if occupied.
    #[inline]
    pub(crate) fn get_key(&self, key: usize) -> Option<&T> {
        self.0.get_slot(key)
    }

    /// The id of the value in the occupied slot `key`.
    #[inline]
    pub(crate) fn id_of(&self, key: usize) -> ProxyId {
        self.0.id_of(key)
    }

    /// The generation of every slot, indexed by slot.
    #[inline]
    pub(crate) fn generations(&self) -> &[u32] {
        self.0.generations()
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// `(id, value)` in ascending slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ProxyId, &T)> + '_ {
        self.0.iter()
    }

    /// Bytes of heap memory held, for the per-proxy memory report.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
}

//! `Slots`: the broadphase's [`SlotMap`] keyed by [`ColliderHandle`], the
//! storage of the scene's colliders (its free list is part of a snapshot, so
//! a restored scene hands out the same handles as the original).

use core::ops::{Index, IndexMut};

use proxima_broadphase::internal::{SlotKey, SlotMap};

use crate::collider::ColliderHandle;

impl SlotKey for ColliderHandle {
    /// A handle of no scene (scene id 0): the scene's `Slots` stamps its own id on
    /// every handle it hands out.
    #[inline]
    fn from_parts(index: u32, generation: u32) -> Self {
        ColliderHandle { index, generation, scene: 0 }
    }

    #[inline]
    fn slot(self) -> u32 {
        self.index
    }

    #[inline]
    fn slot_generation(self) -> u32 {
        self.generation
    }
}

/// The colliders by slot (serialized as the slot map and the scene id,
/// validated on load), and the id of the scene they belong to: every handle
/// it hands out carries that id, and a handle with another id is refused as
/// a stale one is. A clone keeps the id (its handles name the same
/// colliders), and so does a restored snapshot (handles saved with it stay
/// valid); new scenes take the next id of a process-wide counter.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Slots<T> {
    map: SlotMap<ColliderHandle, T>,
    scene: u32,
}

/// The next scene id: ids start at 1 (0 is no scene's), wrapping after
/// `u32::MAX` scenes.
fn next_scene_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    loop {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        if id != 0 {
            return id;
        }
    }
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self { map: SlotMap::default(), scene: next_scene_id() }
    }
}

impl<T> Slots<T> {
    /// The slot the next [`Slots::insert`] fills: the last freed one, or a
    /// new one at the end.
    pub(crate) fn next_slot(&self) -> u32 {
        u32::try_from(self.map.next_slot()).expect("proxima-scene: more than u32::MAX colliders")
    }

    /// Stores `value` in [`Slots::next_slot`] and returns its handle.
    pub(crate) fn insert(&mut self, value: T) -> ColliderHandle {
        let handle = self.map.insert(value);
        self.stamped(handle)
    }

    /// `handle` with this scene's id.
    #[inline]
    fn stamped(&self, handle: ColliderHandle) -> ColliderHandle {
        ColliderHandle { scene: self.scene, ..handle }
    }

    /// True when `handle` was made by this scene.
    #[inline]
    fn ours(&self, handle: ColliderHandle) -> bool {
        handle.scene == self.scene
    }

    /// True when `handle` names a live value.
    #[inline]
    pub(crate) fn contains(&self, handle: ColliderHandle) -> bool {
        self.ours(handle) && self.map.contains(handle)
    }

    /// The value of a live handle; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get(&self, handle: ColliderHandle) -> Option<&T> {
        if self.ours(handle) {
            self.map.get(handle)
        } else {
            None
        }
    }

    /// The value of a live handle, mutably; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get_mut(&mut self, handle: ColliderHandle) -> Option<&mut T> {
        if self.ours(handle) {
            self.map.get_mut(handle)
        } else {
            None
        }
    }

    /// Removes a live handle's value; `None` for a stale handle.
    pub(crate) fn remove(&mut self, handle: ColliderHandle) -> Option<T> {
        if self.ours(handle) {
            self.map.remove(handle)
        } else {
            None
        }
    }

    /// The handle of the value in slot `slot` (its current generation).
    ///
    /// # Panics
    /// When the slot was never used.
    #[inline]
    pub(crate) fn handle_of(&self, slot: u32) -> ColliderHandle {
        self.stamped(self.map.id_of(slot as usize))
    }

    /// Starts loading what [`Slots::handle_of`] reads for `slot` (a hint).
    #[inline(always)]
    pub(crate) fn prefetch_handle(&self, slot: u32) {
        proxima_broadphase::internal::prefetch(self.map.generations(), slot);
    }

    /// Starts loading what [`Slots::get_slot`] and [`Slots::handle_of`]
    /// read for `slot` (a hint).
    #[inline(always)]
    pub(crate) fn prefetch(&self, slot: u32) {
        self.map.prefetch_slot(slot);
    }

    /// The value in slot `slot` if it is occupied (whatever its generation).
    #[inline]
    pub(crate) fn get_slot(&self, slot: u32) -> Option<&T> {
        self.map.get_slot(slot as usize)
    }

    /// The value in slot `slot` if it is occupied, mutably.
    #[inline]
    pub(crate) fn get_slot_mut(&mut self, slot: u32) -> Option<&mut T> {
        self.map.get_slot_mut(slot as usize)
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// `(slot, value)` in ascending slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        self.map.iter().map(|(h, v)| (h.index, v))
    }
}

/// The value in an occupied slot, which the caller knows is live (a slot
/// read from one of the scene's trees).
impl<T> Index<u32> for Slots<T> {
    type Output = T;

    #[inline]
    fn index(&self, slot: u32) -> &T {
        self.map.get_slot(slot as usize).unwrap_or_else(|| panic!("collider slot {slot} is vacant"))
    }
}

impl<T> IndexMut<u32> for Slots<T> {
    #[inline]
    fn index_mut(&mut self, slot: u32) -> &mut T {
        self.map.get_slot_mut(slot as usize).unwrap_or_else(|| panic!("collider slot {slot} is vacant"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Freed slots are reused last-freed first, with bumped generations;
    /// stale handles are refused (the slot map itself is tested in the
    /// broadphase).
    #[test]
    fn free_list_order_and_generations() {
        let mut s = Slots::default();
        let handles: Vec<ColliderHandle> = (0..6).map(|i| s.insert(i)).collect();
        for k in [4usize, 1, 3] {
            assert_eq!(s.remove(handles[k]), Some(k as u32));
        }
        assert_eq!(s.remove(handles[1]), None);
        assert_eq!(s.len(), 3);
        let mut got = vec![];
        for v in 10..14 {
            let next = s.next_slot();
            let a = s.insert(v);
            assert_eq!(a.index(), next);
            got.push(a.index());
        }
        assert_eq!(got, [3, 1, 4, 6], "last freed first, then a new slot");
        let keys: Vec<u32> = s.iter().map(|(slot, _)| slot).collect();
        assert_eq!(keys, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(s.handle_of(3), ColliderHandle { index: 3, generation: 1, scene: s.scene });
        assert!(s.get(handles[3]).is_none() && s.get(s.handle_of(3)) == Some(&10));
        assert_eq!(s[3], 10);
    }
}

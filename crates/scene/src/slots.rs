//! A slot map with a generation per slot: the storage behind every
//! [`ColliderHandle`].

use core::ops::{Index, IndexMut};

use crate::collider::ColliderHandle;

/// No next free slot: the end of the free list.
const NONE: u32 = u32::MAX;

/// One slot: a value, or a link in the free list (the next free slot, or
/// [`NONE`]).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Entry<T> {
    Occupied(T),
    Vacant(u32),
}

/// Values keyed by [`ColliderHandle`]: a vector of slots whose freed slots
/// form a free list (the last freed is reused first), plus a generation per
/// slot, bumped on every removal, so a handle kept after its collider left is
/// detected as stale (Box2D's `b2BodyId` revision).
///
/// Why not the `slab` crate, which does the same in memory: the handles
/// handed out after a snapshot restore must be those the original would have
/// handed out (determinism across serde), so the order of the free list is
/// part of the state. `slab`'s serde form keeps only the occupied entries;
/// its deserializer rebuilds the free list in key order and drops trailing
/// vacant slots, and its public API cannot put the order back (the list is
/// only reordered by inserting and removing values). Here the free links are
/// serialized with the entries and the list's head, and deserialization
/// checks them. The broadphase's `Slots` (behind `ProxyId`) is the same
/// structure, keyed by its own id type.
///
/// Invariants (checked when deserializing): `generations.len() ==
/// entries.len() <= u32::MAX`; the free list, from `free_head`, visits every
/// vacant slot exactly once and no occupied one (no cycle); `len` is the
/// number of occupied slots.
#[derive(Clone, Debug)]
pub(crate) struct Slots<T> {
    entries: Vec<Entry<T>>,
    generations: Vec<u32>,
    free_head: u32,
    len: usize,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self { entries: Vec::new(), generations: Vec::new(), free_head: NONE, len: 0 }
    }
}

impl<T> Slots<T> {
    /// The slot the next [`Slots::insert`] fills: the last freed one, or a
    /// new one at the end.
    pub(crate) fn next_slot(&self) -> u32 {
        if self.free_head != NONE {
            self.free_head
        } else {
            u32::try_from(self.entries.len()).expect("proxima-scene: more than u32::MAX colliders")
        }
    }

    /// Stores `value` in [`Slots::next_slot`] and returns its handle.
    ///
    /// # Panics
    /// When more than `u32::MAX` values are stored at once.
    pub(crate) fn insert(&mut self, value: T) -> ColliderHandle {
        let key = self.next_slot() as usize;
        assert!(key < NONE as usize, "proxima-scene: more than u32::MAX colliders");
        if key == self.entries.len() {
            self.entries.push(Entry::Occupied(value));
            self.generations.push(0);
        } else {
            let Entry::Vacant(next) = core::mem::replace(&mut self.entries[key], Entry::Occupied(value)) else {
                unreachable!("the free list names only vacant slots");
            };
            self.free_head = next;
        }
        self.len += 1;
        self.handle_of(key as u32)
    }

    /// True when `handle` names a live value.
    #[inline]
    pub(crate) fn contains(&self, handle: ColliderHandle) -> bool {
        self.get(handle).is_some()
    }

    /// The value of a live handle; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get(&self, handle: ColliderHandle) -> Option<&T> {
        let key = handle.index as usize;
        if self.generations.get(key) != Some(&handle.generation) {
            return None;
        }
        match self.entries.get(key) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    /// Removes a live handle's value, bumps its slot's generation and puts
    /// the slot at the head of the free list; `None` for a stale handle.
    pub(crate) fn remove(&mut self, handle: ColliderHandle) -> Option<T> {
        if !self.contains(handle) {
            return None;
        }
        let key = handle.index as usize;
        self.generations[key] = self.generations[key].wrapping_add(1);
        let Entry::Occupied(value) = core::mem::replace(&mut self.entries[key], Entry::Vacant(self.free_head)) else {
            unreachable!("contains() checked the slot");
        };
        self.free_head = key as u32;
        self.len -= 1;
        Some(value)
    }

    /// The handle of the value in slot `slot` (its current generation).
    ///
    /// # Panics
    /// When the slot was never used.
    #[inline]
    pub(crate) fn handle_of(&self, slot: u32) -> ColliderHandle {
        ColliderHandle { index: slot, generation: self.generations[slot as usize] }
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// `(slot, value)` in ascending slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        self.entries.iter().enumerate().filter_map(|(key, e)| match e {
            Entry::Occupied(v) => Some((key as u32, v)),
            Entry::Vacant(_) => None,
        })
    }

    /// `(slot, value)` in ascending slot order, mutably.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> + '_ {
        self.entries.iter_mut().enumerate().filter_map(|(key, e)| match e {
            Entry::Occupied(v) => Some((key as u32, v)),
            Entry::Vacant(_) => None,
        })
    }

    /// Rebuilds the slot map from serialized parts, checking every invariant
    /// (see [`Slots`]) instead of trusting the payload.
    #[cfg_attr(not(any(feature = "serde", test)), allow(dead_code))]
    fn from_parts(entries: Vec<Entry<T>>, generations: Vec<u32>, free_head: u32) -> Result<Self, String> {
        if entries.len() != generations.len() {
            return Err(format!("{} slots but {} generations", entries.len(), generations.len()));
        }
        if entries.len() > NONE as usize {
            return Err(format!("{} slots, more than handles can name", entries.len()));
        }
        let vacant = entries.iter().filter(|e| matches!(e, Entry::Vacant(_))).count();
        // Walk the free list: at most `vacant` steps, each onto an unvisited
        // vacant slot; a longer walk would revisit one (a cycle).
        let mut seen = vec![false; entries.len()];
        let (mut at, mut steps) = (free_head, 0usize);
        while at != NONE {
            let key = at as usize;
            match entries.get(key) {
                None => return Err(format!("free list names slot {key} of {}", entries.len())),
                Some(Entry::Occupied(_)) => return Err(format!("free list names occupied slot {key}")),
                Some(Entry::Vacant(next)) => {
                    if seen[key] {
                        return Err(format!("free list has a cycle through slot {key}"));
                    }
                    seen[key] = true;
                    steps += 1;
                    at = *next;
                }
            }
        }
        if steps != vacant {
            return Err(format!("free list reaches {steps} of the {vacant} vacant slots"));
        }
        Ok(Self { len: entries.len() - vacant, entries, generations, free_head })
    }
}

/// The value in an occupied slot, which the caller knows is live (a slot
/// read from one of the scene's trees).
impl<T> Index<u32> for Slots<T> {
    type Output = T;

    #[inline]
    fn index(&self, slot: u32) -> &T {
        match self.entries.get(slot as usize) {
            Some(Entry::Occupied(v)) => v,
            _ => panic!("collider slot {slot} is vacant"),
        }
    }
}

impl<T> IndexMut<u32> for Slots<T> {
    #[inline]
    fn index_mut(&mut self, slot: u32) -> &mut T {
        match self.entries.get_mut(slot as usize) {
            Some(Entry::Occupied(v)) => v,
            _ => panic!("collider slot {slot} is vacant"),
        }
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    //! The serialized form: the slots (values and free links), the
    //! generations and the free list's head. Deserialization validates it.

    use super::{Entry, Slots};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    struct SlotsRef<'a, T> {
        entries: &'a [Entry<T>],
        generations: &'a [u32],
        free_head: u32,
    }

    #[derive(Deserialize)]
    struct SlotsOwned<T> {
        entries: Vec<Entry<T>>,
        generations: Vec<u32>,
        free_head: u32,
    }

    impl<T: Serialize> Serialize for Slots<T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            SlotsRef { entries: &self.entries, generations: &self.generations, free_head: self.free_head }
                .serialize(serializer)
        }
    }

    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Slots<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let parts = SlotsOwned::<T>::deserialize(deserializer)?;
            Slots::from_parts(parts.entries, parts.generations, parts.free_head).map_err(serde::de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &Slots<u32>) -> (Vec<Entry<u32>>, Vec<u32>, u32) {
        (s.entries.clone(), s.generations.clone(), s.free_head)
    }

    /// Freed slots are reused last-freed first, with bumped generations;
    /// stale handles are refused; the free list survives a rebuild from parts.
    #[test]
    fn free_list_order_and_generations() {
        let mut s = Slots::default();
        let handles: Vec<ColliderHandle> = (0..6).map(|i| s.insert(i)).collect();
        for k in [4usize, 1, 3] {
            assert_eq!(s.remove(handles[k]), Some(k as u32));
        }
        assert_eq!(s.remove(handles[1]), None);
        assert_eq!(s.len(), 3);
        let (e, g, h) = parts(&s);
        let mut r = Slots::from_parts(e, g, h).expect("consistent");
        let mut got = vec![];
        for v in 10..14 {
            assert_eq!(s.next_slot(), r.next_slot());
            let (a, b) = (s.insert(v), r.insert(v));
            assert_eq!(a, b);
            got.push(a.index());
        }
        assert_eq!(got, [3, 1, 4, 6], "last freed first, then a new slot");
        let keys: Vec<u32> = s.iter().map(|(slot, _)| slot).collect();
        assert_eq!(keys, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(s.handle_of(3), ColliderHandle { index: 3, generation: 1 });
        assert!(s.get(handles[3]).is_none() && s.get(s.handle_of(3)) == Some(&10));
        assert_eq!(s[3], 10);
    }

    /// Every inconsistent payload is refused with a reason.
    #[test]
    fn inconsistent_parts_are_refused() {
        let mut s = Slots::default();
        let handles: Vec<ColliderHandle> = (0..5).map(|i| s.insert(i)).collect();
        s.remove(handles[1]).unwrap();
        s.remove(handles[3]).unwrap();
        let (e, g, h) = parts(&s);
        assert_eq!(h, 3);
        assert!(Slots::from_parts(e.clone(), g.clone(), h).is_ok());
        assert!(Slots::from_parts(e.clone(), g[..4].to_vec(), h).unwrap_err().contains("generations"));
        assert!(Slots::from_parts(e.clone(), g.clone(), 9).unwrap_err().contains("names slot 9"));
        assert!(Slots::from_parts(e.clone(), g.clone(), 0).unwrap_err().contains("occupied"));
        assert!(Slots::from_parts(e.clone(), g.clone(), 1).unwrap_err().contains("reaches 1 of the 2"));
        assert!(Slots::from_parts(e.clone(), g.clone(), NONE).unwrap_err().contains("reaches 0 of the 2"));
        let mut c = e.clone();
        c[1] = Entry::Vacant(3);
        assert!(Slots::from_parts(c, g.clone(), h).unwrap_err().contains("cycle"));
        let mut c = e;
        c[3] = Entry::Vacant(3);
        assert!(Slots::from_parts(c, g, h).unwrap_err().contains("cycle"));
    }
}

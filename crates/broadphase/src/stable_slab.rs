//! A slab whose free list survives serialization.

use std::ops::{Index, IndexMut};

/// Values in numbered slots; a removed slot is reused by a later insert, the
/// last freed first (the order of the `slab` crate).
///
/// As in `slab`, each free slot holds the key of the next free one (a stack
/// threaded through the entries, no allocation of its own); unlike `slab`,
/// these links and the stack's head are part of the serde form, so a
/// serialized and restored slab hands out exactly the keys the original
/// would have (B12: `slab` serializes only the occupied entries and rebuilds
/// its free list in key order, so ids and handles issued after a snapshot
/// restore diverged from the original run, rapier #910). A deserialized
/// value is checked: the free list from its head visits every free slot
/// exactly once.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(try_from = "serde_form::StableSlabData<T>", bound(deserialize = "T: serde::Deserialize<'de>"))
)]
pub struct StableSlab<T> {
    entries: Vec<Entry<T>>,
    /// The last freed slot, [`NONE`] when no slot is free.
    next_free: u32,
    len: usize,
}

/// No free slot (the end of the free list).
const NONE: u32 = u32::MAX;

/// A slot: a value, or the key of the next free slot.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Entry<T> {
    Occupied(T),
    Vacant(u32),
}

impl<T> Default for StableSlab<T> {
    fn default() -> Self {
        Self { entries: Vec::new(), next_free: NONE, len: 0 }
    }
}

impl<T> StableSlab<T> {
    /// An empty slab.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no slot is occupied.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots allocated (occupied or free) without reallocating.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Bytes of heap memory held (the entries; the free list lives in them).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry<T>>()
    }

    /// The key the next [`insert`](Self::insert) will return.
    #[inline]
    pub fn vacant_key(&self) -> usize {
        if self.next_free == NONE {
            self.entries.len()
        } else {
            self.next_free as usize
        }
    }

    /// Stores `value` in the last freed slot (or a new one) and returns its key.
    ///
    /// # Panics
    /// When more than `u32::MAX - 1` slots would be needed.
    pub fn insert(&mut self, value: T) -> usize {
        let key = self.vacant_key();
        if key == self.entries.len() {
            assert!(key < NONE as usize, "StableSlab: too many slots");
            self.entries.push(Entry::Occupied(value));
        } else {
            match std::mem::replace(&mut self.entries[key], Entry::Occupied(value)) {
                Entry::Vacant(next) => self.next_free = next,
                Entry::Occupied(_) => unreachable!("StableSlab: the free list names an occupied slot"),
            }
        }
        self.len += 1;
        key
    }

    /// Removes and returns the value in slot `key`, `None` when it is free.
    pub fn try_remove(&mut self, key: usize) -> Option<T> {
        let entry = self.entries.get_mut(key)?;
        if matches!(entry, Entry::Vacant(_)) {
            return None;
        }
        let Entry::Occupied(value) = std::mem::replace(entry, Entry::Vacant(self.next_free)) else { unreachable!() };
        self.next_free = key as u32;
        self.len -= 1;
        Some(value)
    }

    /// Removes and returns the value in slot `key`.
    ///
    /// # Panics
    /// When the slot is free.
    pub fn remove(&mut self, key: usize) -> T {
        self.try_remove(key).expect("StableSlab::remove: free slot")
    }

    /// True when slot `key` holds a value.
    #[inline]
    pub fn contains(&self, key: usize) -> bool {
        self.get(key).is_some()
    }

    /// The value in slot `key`, if occupied.
    #[inline]
    pub fn get(&self, key: usize) -> Option<&T> {
        match self.entries.get(key) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    /// The value in slot `key`, mutably, if occupied.
    #[inline]
    pub fn get_mut(&mut self, key: usize) -> Option<&mut T> {
        match self.entries.get_mut(key) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    /// `(key, value)` of the occupied slots in ascending key order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &T)> + '_ {
        self.entries.iter().enumerate().filter_map(|(k, e)| match e {
            Entry::Occupied(v) => Some((k, v)),
            Entry::Vacant(_) => None,
        })
    }

    /// `(key, value)` of the occupied slots in ascending key order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (usize, &mut T)> + '_ {
        self.entries.iter_mut().enumerate().filter_map(|(k, e)| match e {
            Entry::Occupied(v) => Some((k, v)),
            Entry::Vacant(_) => None,
        })
    }
}

impl<T> Index<usize> for StableSlab<T> {
    type Output = T;

    /// # Panics
    /// When the slot is free or out of range.
    #[inline]
    fn index(&self, key: usize) -> &T {
        self.get(key).expect("StableSlab: free slot")
    }
}

impl<T> IndexMut<usize> for StableSlab<T> {
    #[inline]
    fn index_mut(&mut self, key: usize) -> &mut T {
        self.get_mut(key).expect("StableSlab: free slot")
    }
}

#[cfg(feature = "serde")]
mod serde_form {
    use super::{Entry, StableSlab, NONE};

    /// The serialized fields, checked before they become a [`StableSlab`].
    #[derive(serde::Deserialize)]
    pub(super) struct StableSlabData<T> {
        entries: Vec<Entry<T>>,
        next_free: u32,
        len: usize,
    }

    impl<T> TryFrom<StableSlabData<T>> for StableSlab<T> {
        type Error = String;

        fn try_from(d: StableSlabData<T>) -> Result<Self, String> {
            let vacant = d.entries.iter().filter(|e| matches!(e, Entry::Vacant(_))).count();
            if d.len + vacant != d.entries.len() {
                return Err(format!("StableSlab: len {} with {} of {} slots free", d.len, vacant, d.entries.len()));
            }
            // Walk the free list: `vacant` distinct free slots, then the end.
            let (mut key, mut steps) = (d.next_free, 0);
            while key != NONE {
                match d.entries.get(key as usize) {
                    Some(Entry::Vacant(next)) if steps < vacant => (key, steps) = (*next, steps + 1),
                    _ => return Err(format!("StableSlab: free list broken at slot {key}")),
                }
            }
            if steps != vacant {
                return Err(format!("StableSlab: free list reaches {steps} of {vacant} free slots"));
            }
            Ok(StableSlab { entries: d.entries, next_free: d.next_free, len: d.len })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StableSlab;

    #[test]
    fn reuses_the_last_freed_slot_first() {
        let mut s = StableSlab::new();
        let keys: Vec<usize> = (0..5).map(|i| s.insert(i)).collect();
        assert_eq!(keys, [0, 1, 2, 3, 4]);
        assert_eq!(s.remove(3), 3);
        assert_eq!(s.remove(1), 1);
        assert_eq!(s.try_remove(1), None);
        assert_eq!((s.len(), s.vacant_key()), (3, 1));
        assert_eq!(s.insert(10), 1);
        assert_eq!(s.insert(11), 3);
        assert_eq!(s.insert(12), 5);
        assert_eq!(
            s.iter().map(|(k, v)| (k, *v)).collect::<Vec<_>>(),
            [(0, 0), (1, 10), (2, 2), (3, 11), (4, 4), (5, 12)]
        );
    }

    /// The free list's order survives a round trip (B12), trailing free
    /// slots included; a broken free list is rejected.
    #[cfg(feature = "serde")]
    #[test]
    fn serde_keeps_the_free_list_order() {
        let mut s = StableSlab::new();
        for i in 0..6 {
            s.insert(i);
        }
        for k in [5, 1, 3] {
            s.remove(k);
        }
        let mut r: StableSlab<i32> = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(r, s);
        let keys: Vec<usize> = (0..4).map(|i| s.insert(i)).collect();
        assert_eq!(keys, [3, 1, 5, 6]);
        assert_eq!((0..4).map(|i| r.insert(i)).collect::<Vec<_>>(), keys);
        let bad = r#"{"entries":[{"Vacant":1},{"Vacant":0}],"next_free":0,"len":0}"#;
        assert!(serde_json::from_str::<StableSlab<i32>>(bad).is_err(), "a cycle in the free list");
        let bad = r#"{"entries":[{"Occupied":7},{"Vacant":4294967295}],"next_free":4294967295,"len":1}"#;
        assert!(serde_json::from_str::<StableSlab<i32>>(bad).is_err(), "a free slot off the list");
    }
}

//! A slot map with a generation per slot: the storage behind every [`ProxyId`].

use crate::{BroadPhaseError, ProxyId};

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

/// Values keyed by [`ProxyId`]: a vector of slots whose freed slots form a
/// free list (the last freed is reused first), plus a generation counter per
/// slot, bumped on every removal, so an id kept after its proxy left is
/// detected as stale (Box2D's `b2BodyId` revision).
///
/// Why not the `slab` crate, which does the same in memory: the ids handed
/// out after a snapshot restore must be those the original would have handed
/// out (determinism across serde, rapier #910), so the order of the free list
/// is part of the state. `slab`'s serde form keeps only the occupied entries;
/// its deserializer rebuilds the free list in key order and drops trailing
/// vacant slots, so a restored structure hands out different ids (B12), and
/// its public API cannot put the order back (the list is only reordered by
/// inserting and removing values). Here the free links are serialized with
/// the entries and the list's head, and deserialization checks them.
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
    /// Stores `value` and returns its id: in the last freed slot, or a new
    /// one at the end.
    ///
    /// # Panics
    /// When more than `max_index + 1` values are stored at once.
    pub(crate) fn insert(&mut self, value: T, max_index: u32) -> ProxyId {
        let key = if self.free_head != NONE { self.free_head as usize } else { self.entries.len() };
        assert!(key <= max_index as usize, "proxima-broadphase: too many proxies (limit {})", max_index as u64 + 1);
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
        self.get_key(key)
    }

    /// The value of a live id, mutably; `None` for a stale or unknown one.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        let key = id.index() as usize;
        if self.generations.get(key) != Some(&id.generation()) {
            return None;
        }
        match self.entries.get_mut(key) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
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

    /// Removes a live id's value, bumps its slot's generation and puts the
    /// slot at the head of the free list.
    pub(crate) fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        if !self.contains(id) {
            return Err(BroadPhaseError::StaleId(id));
        }
        let key = id.index() as usize;
        self.generations[key] = self.generations[key].wrapping_add(1);
        let Entry::Occupied(value) = core::mem::replace(&mut self.entries[key], Entry::Vacant(self.free_head)) else {
            unreachable!("contains() checked the slot");
        };
        self.free_head = key as u32;
        self.len -= 1;
        Ok(value)
    }

    /// The value in slot `key`, which the caller knows is occupied.
    ///
    /// # Panics
    /// When the slot is vacant or out of range.
    #[inline]
    pub(crate) fn by_key(&self, key: usize) -> &T {
        self.get_key(key).unwrap_or_else(|| panic!("slot {key} is vacant"))
    }

    /// The value in slot `key`, mutably, which the caller knows is occupied.
    ///
    /// # Panics
    /// When the slot is vacant or out of range.
    #[inline]
    pub(crate) fn by_key_mut(&mut self, key: usize) -> &mut T {
        match self.entries.get_mut(key) {
            Some(Entry::Occupied(v)) => v,
            _ => panic!("slot {key} is vacant"),
        }
    }

    /// The value in slot `key`, if occupied.
    #[inline]
    pub(crate) fn get_key(&self, key: usize) -> Option<&T> {
        match self.entries.get(key) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
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
        self.len
    }

    /// `(id, value)` in ascending slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ProxyId, &T)> + '_ {
        self.entries.iter().enumerate().filter_map(|(key, e)| match e {
            Entry::Occupied(v) => Some((ProxyId::new(key as u32, self.generations[key]), v)),
            Entry::Vacant(_) => None,
        })
    }

    /// Bytes of heap memory held, for the per-proxy memory report.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * core::mem::size_of::<Entry<T>>() + self.generations.capacity() * 4
    }

    /// Rebuilds the slot map from serialized parts, checking every invariant
    /// (see [`Slots`]) instead of trusting the payload.
    #[cfg_attr(not(any(feature = "serde", test)), allow(dead_code))]
    fn from_parts(entries: Vec<Entry<T>>, generations: Vec<u32>, free_head: u32) -> Result<Self, String> {
        if entries.len() != generations.len() {
            return Err(format!("{} slots but {} generations", entries.len(), generations.len()));
        }
        if entries.len() > NONE as usize {
            return Err(format!("{} slots, more than ids can name", entries.len()));
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
    /// stale ids are refused; the free list survives a rebuild from parts.
    #[test]
    fn free_list_order_and_generations() {
        let mut s = Slots::default();
        let ids: Vec<ProxyId> = (0..6).map(|i| s.insert(i, 100)).collect();
        for k in [4usize, 1, 3] {
            assert_eq!(s.remove(ids[k]), Ok(k as u32));
        }
        assert_eq!(s.remove(ids[1]), Err(BroadPhaseError::StaleId(ids[1])));
        assert_eq!(s.len(), 3);
        let (e, g, h) = parts(&s);
        let mut r = Slots::from_parts(e, g, h).expect("consistent");
        let mut got = vec![];
        for v in 10..14 {
            let (a, b) = (s.insert(v, 100), r.insert(v, 100));
            assert_eq!(a, b);
            got.push(a.index());
        }
        assert_eq!(got, [3, 1, 4, 6], "last freed first, then a new slot");
        let keys: Vec<u32> = s.iter().map(|(id, _)| id.index()).collect();
        assert_eq!(keys, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(s.id_of(3), ProxyId::new(3, 1));
        assert!(s.get(ids[3]).is_none() && s.get(ProxyId::new(3, 1)) == Some(&10));
    }

    /// Every inconsistent payload is refused with a reason.
    #[test]
    fn inconsistent_parts_are_refused() {
        let mut s = Slots::default();
        let ids: Vec<ProxyId> = (0..5).map(|i| s.insert(i, 100)).collect();
        s.remove(ids[1]).unwrap();
        s.remove(ids[3]).unwrap();
        let (e, g, h) = parts(&s);
        assert_eq!(h, 3);
        assert!(Slots::from_parts(e.clone(), g.clone(), h).is_ok());
        // Lengths differ.
        assert!(Slots::from_parts(e.clone(), g[..4].to_vec(), h).unwrap_err().contains("generations"));
        // Head out of range, on an occupied slot, or missing a vacant slot.
        assert!(Slots::from_parts(e.clone(), g.clone(), 9).unwrap_err().contains("names slot 9"));
        assert!(Slots::from_parts(e.clone(), g.clone(), 0).unwrap_err().contains("occupied"));
        assert!(Slots::from_parts(e.clone(), g.clone(), 1).unwrap_err().contains("reaches 1 of the 2"));
        assert!(Slots::from_parts(e.clone(), g.clone(), NONE).unwrap_err().contains("reaches 0 of the 2"));
        // A cycle: slot 1 links back to 3.
        let mut c = e.clone();
        c[1] = Entry::Vacant(3);
        assert!(Slots::from_parts(c, g.clone(), h).unwrap_err().contains("cycle"));
        // A self-loop.
        let mut c = e;
        c[3] = Entry::Vacant(3);
        assert!(Slots::from_parts(c, g, h).unwrap_err().contains("cycle"));
    }
}

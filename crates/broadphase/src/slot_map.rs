//! [`SlotMap`]: values keyed by generational ids, whose free list is part of
//! its serialized state. The storage behind `ProxyId` and the scene's
//! `ColliderHandle`.

/// No next free slot: the end of the free list.
const NONE: u32 = u32::MAX;

/// A generational id of a [`SlotMap`]: a slot index and the slot's
/// generation when the value was inserted.
pub trait SlotKey: Copy {
    /// The id of slot `index` at `generation`.
    fn from_parts(index: u32, generation: u32) -> Self;
    /// The slot index.
    fn slot(self) -> u32;
    /// The slot's generation this id was made at.
    fn slot_generation(self) -> u32;
}

/// One slot: a value, or a link in the free list (the next free slot, or
/// `u32::MAX` at its end).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum Entry<T> {
    Occupied(T),
    Vacant(u32),
}

/// Values keyed by generational ids `K`: a vector of slots whose freed slots
/// form a free list (the last freed is reused first), plus a generation per
/// slot, bumped on every removal, so an id kept after its value left is
/// detected as stale (Box2D's `b2BodyId` revision).
///
/// Why not the `slab` crate, which does the same in memory: the ids handed
/// out after a snapshot restore must be those the original would have handed
/// out (determinism across serde, rapier #910), so the order of the free list
/// is part of the state. `slab`'s serde form keeps only the occupied entries;
/// its deserializer rebuilds the free list in key order and drops trailing
/// vacant slots, so a restored structure hands out different ids, and
/// its public API cannot put the order back (the list is only reordered by
/// inserting and removing values). Here the free links are serialized with
/// the entries and the list's head, and deserialization checks them.
///
/// Invariants (checked when deserializing): `generations.len() ==
/// entries.len() <= u32::MAX`; the free list, from `free_head`, visits every
/// vacant slot exactly once and no occupied one (no cycle); `len` is the
/// number of occupied slots.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::internal::SlotMap;
/// use proxima::broadphase::ProxyId;
/// let mut map: SlotMap<ProxyId, &str> = SlotMap::default();
/// let a = map.insert("a");
/// let b = map.insert("b");
/// assert_eq!(map.remove(a), Some("a"));
/// assert_eq!(map.get(a), None); // stale
/// let c = map.insert("c"); // reuses a's slot, with a new generation
/// assert_eq!((c.index(), map.get(c)), (a.index(), Some(&"c")));
/// assert_eq!(map.get(b), Some(&"b"));
/// ```
#[derive(Clone, Debug)]
pub struct SlotMap<K, T> {
    entries: Vec<Entry<T>>,
    generations: Vec<u32>,
    free_head: u32,
    len: usize,
    key: core::marker::PhantomData<fn() -> K>,
}

impl<K, T> Default for SlotMap<K, T> {
    fn default() -> Self {
        Self { entries: Vec::new(), generations: Vec::new(), free_head: NONE, len: 0, key: core::marker::PhantomData }
    }
}

impl<K: SlotKey, T> SlotMap<K, T> {
    /// Makes room for `additional` more values without reallocating.
    pub fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        self.generations.reserve(additional);
    }

    /// The slot the next [`insert`](Self::insert) fills: the last freed one,
    /// or a new one at the end.
    #[inline]
    pub fn next_slot(&self) -> usize {
        if self.free_head != NONE {
            self.free_head as usize
        } else {
            self.entries.len()
        }
    }

    /// Stores `value` and returns its id: in the last freed slot, or a new
    /// one at the end.
    ///
    /// # Panics
    /// With `u32::MAX` slots in use.
    pub fn insert(&mut self, value: T) -> K {
        let key = self.next_slot();
        assert!(key < NONE as usize, "proxima: a slot map holds fewer than 2^32 - 1 values");
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
        K::from_parts(key as u32, self.generations[key])
    }

    /// True when `id` names a live value.
    #[inline]
    pub fn contains(&self, id: K) -> bool {
        self.get(id).is_some()
    }

    /// The value of a live id; `None` for a stale or unknown one.
    #[inline]
    pub fn get(&self, id: K) -> Option<&T> {
        let key = id.slot() as usize;
        if self.generations.get(key) != Some(&id.slot_generation()) {
            return None;
        }
        self.get_slot(key)
    }

    /// The value of a live id, mutably; `None` for a stale or unknown one.
    #[inline]
    pub fn get_mut(&mut self, id: K) -> Option<&mut T> {
        let key = id.slot() as usize;
        if self.generations.get(key) != Some(&id.slot_generation()) {
            return None;
        }
        self.get_slot_mut(key)
    }

    /// Removes a live id's value, bumps its slot's generation and puts the
    /// slot at the head of the free list; `None` (and no change) for a stale id.
    pub fn remove(&mut self, id: K) -> Option<T> {
        if !self.contains(id) {
            return None;
        }
        let key = id.slot() as usize;
        self.generations[key] = self.generations[key].wrapping_add(1);
        let Entry::Occupied(value) = core::mem::replace(&mut self.entries[key], Entry::Vacant(self.free_head)) else {
            unreachable!("contains() checked the slot");
        };
        self.free_head = key as u32;
        self.len -= 1;
        Some(value)
    }

    /// The value in slot `slot`, if occupied (whatever its generation).
    #[inline]
    pub fn get_slot(&self, slot: usize) -> Option<&T> {
        match self.entries.get(slot) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    /// The value in slot `slot`, mutably, if occupied.
    #[inline]
    pub fn get_slot_mut(&mut self, slot: usize) -> Option<&mut T> {
        match self.entries.get_mut(slot) {
            Some(Entry::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    /// The id of slot `slot` at its current generation.
    ///
    /// # Panics
    /// When the slot was never used.
    #[inline]
    pub fn id_of(&self, slot: usize) -> K {
        K::from_parts(slot as u32, self.generations[slot])
    }

    /// Starts loading slot `slot`'s value and generation (a hint: see
    /// [`prefetch_lines`](crate::internal::prefetch_lines)); nothing for a
    /// slot never used.
    #[inline(always)]
    pub fn prefetch_slot(&self, slot: u32) {
        crate::prefetch::prefetch_lines(&self.entries, slot);
        crate::prefetch::prefetch(&self.generations, slot);
    }

    /// The generation of every slot, indexed by slot.
    #[inline]
    pub fn generations(&self) -> &[u32] {
        &self.generations
    }

    /// Number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no value is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `(id, value)` in ascending slot order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &T)> + '_ {
        self.entries.iter().enumerate().filter_map(|(key, e)| match e {
            Entry::Occupied(v) => Some((K::from_parts(key as u32, self.generations[key]), v)),
            Entry::Vacant(_) => None,
        })
    }

    /// `(id, value)` in ascending slot order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut T)> + '_ {
        let generations = &self.generations;
        self.entries.iter_mut().enumerate().filter_map(move |(key, e)| match e {
            Entry::Occupied(v) => Some((K::from_parts(key as u32, generations[key]), v)),
            Entry::Vacant(_) => None,
        })
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * core::mem::size_of::<Entry<T>>() + self.generations.capacity() * 4
    }

    /// Rebuilds the slot map from serialized parts, checking every invariant
    /// (see [`SlotMap`]) instead of trusting the payload.
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
        Ok(Self { len: entries.len() - vacant, entries, generations, free_head, key: core::marker::PhantomData })
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    //! The serialized form: the slots (values and free links), the
    //! generations and the free list's head. Deserialization validates it.

    use super::{Entry, SlotKey, SlotMap};
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

    impl<K, T: Serialize> Serialize for SlotMap<K, T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            SlotsRef { entries: &self.entries, generations: &self.generations, free_head: self.free_head }
                .serialize(serializer)
        }
    }

    impl<'de, K: SlotKey, T: Deserialize<'de>> Deserialize<'de> for SlotMap<K, T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let parts = SlotsOwned::<T>::deserialize(deserializer)?;
            SlotMap::from_parts(parts.entries, parts.generations, parts.free_head).map_err(serde::de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProxyId;

    type Map = SlotMap<ProxyId, u32>;

    fn parts(s: &Map) -> (Vec<Entry<u32>>, Vec<u32>, u32) {
        (s.entries.clone(), s.generations.clone(), s.free_head)
    }

    /// Freed slots are reused last-freed first, with bumped generations;
    /// stale ids are refused; the free list survives a rebuild from parts.
    #[test]
    fn free_list_order_and_generations() {
        let mut s = Map::default();
        let ids: Vec<ProxyId> = (0..6).map(|i| s.insert(i)).collect();
        for k in [4usize, 1, 3] {
            assert_eq!(s.remove(ids[k]), Some(k as u32));
        }
        assert_eq!(s.remove(ids[1]), None);
        assert_eq!(s.len(), 3);
        let (e, g, h) = parts(&s);
        let mut r = Map::from_parts(e, g, h).expect("consistent");
        let mut got = vec![];
        for v in 10..14 {
            let (a, b) = (s.insert(v), r.insert(v));
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
        let mut s = Map::default();
        let ids: Vec<ProxyId> = (0..5).map(|i| s.insert(i)).collect();
        s.remove(ids[1]).unwrap();
        s.remove(ids[3]).unwrap();
        let (e, g, h) = parts(&s);
        assert_eq!(h, 3);
        assert!(Map::from_parts(e.clone(), g.clone(), h).is_ok());
        // Lengths differ.
        assert!(Map::from_parts(e.clone(), g[..4].to_vec(), h).unwrap_err().contains("generations"));
        // Head out of range, on an occupied slot, or missing a vacant slot.
        assert!(Map::from_parts(e.clone(), g.clone(), 9).unwrap_err().contains("names slot 9"));
        assert!(Map::from_parts(e.clone(), g.clone(), 0).unwrap_err().contains("occupied"));
        assert!(Map::from_parts(e.clone(), g.clone(), 1).unwrap_err().contains("reaches 1 of the 2"));
        assert!(Map::from_parts(e.clone(), g.clone(), NONE).unwrap_err().contains("reaches 0 of the 2"));
        // A cycle: slot 1 links back to 3.
        let mut c = e.clone();
        c[1] = Entry::Vacant(3);
        assert!(Map::from_parts(c, g.clone(), h).unwrap_err().contains("cycle"));
        // A self-loop.
        let mut c = e;
        c[3] = Entry::Vacant(3);
        assert!(Map::from_parts(c, g, h).unwrap_err().contains("cycle"));
    }
}

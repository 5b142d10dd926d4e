//! Generational proxy handles.

/// A handle to a proxy in a dynamic structure: a slot index and the slot's
/// generation when the proxy was inserted.
///
/// Slots are reused (the last freed first), so an id kept after `remove` would otherwise
/// name whatever proxy took the slot next; the generation makes such a stale
/// id detectable, and every structure rejects it. Ids order by
/// `(index, generation)`: pair keys `(min, max)` use this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProxyId {
    index: u32,
    generation: u32,
}

impl ProxyId {
    /// An id from its parts (for structures and tests; users get ids from `insert`).
    #[inline]
    pub const fn new(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }

    /// The slot index.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The slot's generation at insertion.
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation
    }
}

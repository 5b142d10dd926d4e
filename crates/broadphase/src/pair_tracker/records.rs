//! The tracker's per-slot tables and this frame's change log.
//!
//! Invariants: `records`, `tights` and the bit tables (`changed`, `renewed`,
//! `touched`, one bit per slot) cover every slot the slot map ever handed
//! out. A slot with a change this frame has `stamp == epoch`, its bit in
//! `changed` set, and `change` indexing its latest entry in `changes`; that
//! entry's `before` names the proxy the slot held at the last update (the
//! pair set stores slots, so `before` names the proxies of its old pairs).

use super::ProxyOptions;
use crate::slots::Slots;
use crate::ProxyId;
use proxima_narrowphase::Aabb;

/// The proxy slot `slot` held at the last update: its occupant now when it
/// did not change this frame, else the `before` of its latest change.
#[inline]
pub(crate) fn held<T>(
    proxies: &Slots<Entry<T>>,
    changed: &[u64],
    tights: &[TightRecord],
    changes: &[ChangeEntry],
    slot: u32,
) -> ProxyId {
    if changed[slot as usize / 64] & (1 << (slot % 64)) == 0 {
        proxies.id_of(slot as usize)
    } else {
        changes[tights[slot as usize].change as usize].before
    }
}

/// A proxy's user data and options (the slot map's value).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Entry<T> {
    pub(crate) data: T,
    pub(crate) options: ProxyOptions,
}

/// A proxy's fat box and where it lives: what a move, a query's hit and a
/// tree build read. Half a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct Record {
    /// The fat box every query tests.
    pub(crate) fat: Aabb,
    /// Its leaf slot in its kind's BVH, or `tree::NONE` while pending.
    pub(crate) leaf: u32,
    /// A copy of its options' static flag (which tree holds it).
    pub(crate) is_static: bool,
}

/// A proxy's tight box and this frame's change stamp: what the merge reads
/// for every pair of the set, kept apart from [`Record`] so that its table
/// (32 bytes a proxy, half of one shared record) stays in cache on large
/// pair sets.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct TightRecord {
    /// The tight box last given.
    pub(crate) tight: Aabb,
    /// The epoch of the proxy's last change.
    pub(crate) stamp: u32,
    /// That change's index in `changes`.
    pub(crate) change: u32,
}

/// One change of this frame: the proxy, how it changed, and the proxy its
/// slot held at the last update (`before`: the first of the slot's proxies to
/// change this frame; another than `id` when the slot was freed and reused
/// within the frame). The pair set stores slots, so `before` names the
/// proxies of its old pairs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChangeEntry {
    pub(crate) id: ProxyId,
    pub(crate) change: Change,
    pub(crate) before: ProxyId,
}

/// How a proxy changed since the last update.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Change {
    /// Its fat box grew out of `old_fat`, the fat box it had at the last update.
    Moved { old_fat: Aabb },
    /// Inserted or re-filtered: every pair it had is re-derived.
    Fresh,
    /// Removed.
    Removed,
}

//! The colliders changed since the contact pipeline last read them, so that
//! a frame costs the pipeline what moved, not what the scene holds.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::collider::ColliderHandle;

/// The slots of the colliders inserted, removed, moved, reshaped or
/// re-grouped since the last [`take`](ChangeLog::take), each once.
///
/// A reader (the contact pipeline) may use the log only if no other reader
/// took it since its own last take: it keeps the `(scene, takes)` stamp that
/// [`take`](ChangeLog::take) returned and compares it with
/// [`stamp`](ChangeLog::stamp); on a mismatch (another pipeline on the same
/// scene, a cloned or deserialized scene, which gets a new id) it reads
/// every collider instead.
#[derive(Debug)]
pub(crate) struct ChangeLog {
    /// Per slot, one bit: the slot changed since the last take.
    logged: Vec<u64>,
    /// The indices of the words of `logged` that are not zero, each once,
    /// in order of their first bit.
    words: Vec<u32>,
    /// The colliders removed, with their last user data, in order.
    removed: Vec<RemovedCollider>,
    /// This scene's id (unique in the process) and the number of takes.
    scene: u64,
    takes: u64,
    /// Shape changes so far (`Scene::set_shape`): a pipeline that keeps
    /// manifolds drops them when this moved.
    reshapes: u64,
}

/// A collider removed from the scene since the contact pipeline's previous
/// update: its handle (no longer live: `Scene::get` gives `None`) and what
/// it held, so a `Stopped` event naming it can still be resolved (see
/// [`ContactPipeline::removed`](crate::ContactPipeline::removed)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RemovedCollider {
    /// The removed collider's handle.
    pub handle: ColliderHandle,
    /// Its user data when it was removed.
    pub user_data: u64,
}

/// The source of scene ids.
static NEXT_SCENE: AtomicU64 = AtomicU64::new(1);

impl Default for ChangeLog {
    fn default() -> Self {
        Self {
            logged: Vec::new(),
            words: Vec::new(),
            removed: Vec::new(),
            scene: NEXT_SCENE.fetch_add(1, Ordering::Relaxed),
            takes: 0,
            reshapes: 0,
        }
    }
}

/// A clone is another scene: a new id, so a pipeline that read the original
/// reads every collider of the clone once.
impl Clone for ChangeLog {
    fn clone(&self) -> Self {
        Self {
            logged: self.logged.clone(),
            words: self.words.clone(),
            removed: self.removed.clone(),
            ..Self::default()
        }
    }
}

impl ChangeLog {
    /// Records a change of the collider in `slot`: sets its bit, and lists
    /// its word when the word was zero.
    #[inline]
    pub(crate) fn log(&mut self, slot: u32) {
        let (word, bit) = (slot as usize / 64, 1u64 << (slot % 64));
        let Some(logged) = self.logged.get_mut(word) else {
            return self.log_past_end(slot);
        };
        if *logged == 0 {
            self.words.push(word as u32);
        }
        *logged |= bit;
    }

    /// [`log`](Self::log) of a slot past the bits held so far.
    #[cold]
    #[inline(never)]
    fn log_past_end(&mut self, slot: u32) {
        self.logged.resize(slot as usize / 64 + 1, 0);
        self.log(slot);
    }

    /// Records the removal of a collider (its slot is logged too). Kept
    /// until the next [`take`](ChangeLog::take).
    pub(crate) fn log_removal(&mut self, removed: RemovedCollider) {
        self.log(removed.handle.index);
        self.removed.push(removed);
    }

    /// Counts a shape change (the collider is logged by its move).
    pub(crate) fn log_reshape(&mut self) {
        self.reshapes += 1;
    }

    /// The shape changes so far.
    #[inline]
    pub(crate) fn reshapes(&self) -> u64 {
        self.reshapes
    }

    /// The stamp a reader that took the log last holds: `(scene id, takes)`.
    #[inline]
    pub(crate) fn stamp(&self) -> (u64, u64) {
        (self.scene, self.takes)
    }

    /// The changed slots, sorted, moved into `out`, and the removed
    /// colliders, sorted by handle, into `removed` (their old content
    /// dropped); the log is left empty. Returns the new stamp.
    pub(crate) fn take(&mut self, out: &mut Vec<u32>, removed: &mut Vec<RemovedCollider>) -> (u64, u64) {
        removed.clear();
        removed.extend_from_slice(&self.removed);
        removed.sort_unstable_by_key(|r| r.handle);
        self.removed.clear();
        // The listed words in ascending order, each word's bits from the
        // lowest: the changed slots sorted, each once.
        out.clear();
        self.words.sort_unstable();
        for &word in &self.words {
            let mut bits = core::mem::take(&mut self.logged[word as usize]);
            while bits != 0 {
                out.push(word * 64 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        self.words.clear();
        self.takes += 1;
        self.stamp()
    }
}

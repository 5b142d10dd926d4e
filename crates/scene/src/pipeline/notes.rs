//! The separating axes noted for box pairs from one frame to the next
//! ([`SeparatingAxis`]): the exact tests of a pair of boxes that were apart
//! last frame test last frame's axis first.
//!
//! The notes form a list sorted by pair key, replaced each frame by the
//! notes of the pairs tested (a merge with the candidates, which are sorted
//! the same way). A note is a hint that never changes an answer: a stale one
//! (a slot now holding another collider, a pair that moved far) costs its
//! one axis test. So the list is kept as it is across scene and shape
//! changes.

use proxima_narrowphase::SeparatingAxis;

/// A pair key with its noted axis.
pub(super) type Note = (u64, SeparatingAxis);

/// Last frame's notes, read in key order, and this frame's, written.
pub(super) struct Notes<'n> {
    previous: &'n [Note],
    /// The first note of `previous` whose key is not below the keys read.
    at: usize,
    next: &'n mut Vec<Note>,
}

impl<'n> Notes<'n> {
    /// The notes of candidates from `first_key` on (a parallel slice starts
    /// inside the list).
    pub(super) fn new(previous: &'n [Note], first_key: u64, next: &'n mut Vec<Note>) -> Self {
        let at = previous.partition_point(|&(key, _)| key < first_key);
        Self { previous, at, next }
    }

    /// The note of pair `key` (keys asked in increasing order), or
    /// [`SeparatingAxis::NONE`].
    #[inline]
    pub(super) fn take(&mut self, key: u64) -> SeparatingAxis {
        while let Some(&(noted, axis)) = self.previous.get(self.at) {
            if noted >= key {
                return if noted == key { axis } else { SeparatingAxis::NONE };
            }
            self.at += 1;
        }
        SeparatingAxis::NONE
    }

    /// Keeps pair `key`'s note for the next frame (keys kept in increasing
    /// order; no entry for no axis).
    #[inline]
    pub(super) fn keep(&mut self, key: u64, axis: SeparatingAxis) {
        if axis != SeparatingAxis::NONE {
            self.next.push((key, axis));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_narrowphase::{contact_obb_obb_noting, Obb, Point, Rotation, Vector};

    /// A note of face `k`, from a pair apart along A's axis `k`.
    fn note(k: usize) -> SeparatingAxis {
        let a = Obb::new(Point::origin(), Rotation::identity(), Vector::repeat(1.0));
        let mut far = Vector::zeros();
        far[k] = 5.0;
        let mut axis = SeparatingAxis::NONE;
        let _ = contact_obb_obb_noting(
            &a,
            &Obb::new(Point::from(far), Rotation::identity(), Vector::repeat(1.0)),
            &mut axis,
        );
        axis
    }

    #[test]
    fn notes_are_found_by_key_in_order() {
        let previous = [(3u64, note(0)), (7, note(1)), (9, note(2))];
        let mut next = Vec::new();
        let mut notes = Notes::new(&previous, 0, &mut next);
        assert_eq!(notes.take(2), SeparatingAxis::NONE);
        assert_eq!(notes.take(3), note(0));
        assert_eq!(notes.take(8), SeparatingAxis::NONE);
        assert_eq!(notes.take(9), note(2));
        assert_eq!(notes.take(12), SeparatingAxis::NONE);
        notes.keep(4, note(1));
        notes.keep(5, SeparatingAxis::NONE);
        assert_eq!(next, [(4, note(1))]);
        // A slice that starts inside the list.
        let mut next = Vec::new();
        let mut notes = Notes::new(&previous, 7, &mut next);
        assert_eq!(notes.take(7), note(1));
        assert_eq!(notes.take(9), note(2));
    }
}

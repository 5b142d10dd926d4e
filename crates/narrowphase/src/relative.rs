//! Queries answered about a point near the shapes instead of the world's
//! origin.
//!
//! A computation in world coordinates carries their rounding: `eps` of
//! 1e4 is 1e-3, whatever the shapes' size. Moved so that a point of one
//! shape is the origin, each coordinate becomes a difference of two nearby
//! values, rounded relative to that difference, and the query's distances,
//! depths and normals carry the rounding of the shapes' size and distance.
//! The answer's points are moved back, rounded once to their world
//! coordinates.

use crate::contact::{Contact, ContactManifold};
use crate::distance::ShapeDistance;
use crate::math::Vector;
use crate::shape::{Capsule, Obb, Sphere, Triangle};

/// A shape that can be moved by `-o` (each coordinate minus `o`'s, not
/// checked: a difference of two valid coordinates stays finite).
pub(crate) trait Relative {
    /// The shape with `o` as its origin.
    fn relative_to(&self, o: &Vector) -> Self;
}

/// An answer whose points can be moved back by `o`.
pub(crate) trait MovedBy {
    /// Moves the answer's points by `o`.
    fn move_by(&mut self, o: &Vector);
}

/// `query(a, b)` run about `o`: the shapes moved by `-o`, the answer's
/// points moved back by `o`.
#[inline(always)]
pub(crate) fn about<A: Relative, B: Relative, R: MovedBy>(
    a: &A,
    b: &B,
    o: &Vector,
    query: impl FnOnce(&A, &B) -> R,
) -> R {
    let mut answer = query(&a.relative_to(o), &b.relative_to(o));
    answer.move_by(o);
    answer
}

macro_rules! relative {
    ($($shape:ty),*) => {$(
        impl Relative for $shape {
            #[inline(always)]
            fn relative_to(&self, o: &Vector) -> Self {
                <$shape>::relative_to(self, o)
            }
        }
    )*};
}

relative!(Sphere, Capsule, Obb, Triangle);

impl MovedBy for ShapeDistance {
    #[inline(always)]
    fn move_by(&mut self, o: &Vector) {
        self.point_a += o;
        self.point_b += o;
    }
}

impl MovedBy for Contact {
    #[inline(always)]
    fn move_by(&mut self, o: &Vector) {
        self.point_a += o;
        self.point_b += o;
    }
}

impl MovedBy for ContactManifold {
    #[inline(always)]
    fn move_by(&mut self, o: &Vector) {
        self.move_points(o);
    }
}

impl<T: MovedBy> MovedBy for Option<T> {
    #[inline(always)]
    fn move_by(&mut self, o: &Vector) {
        if let Some(t) = self {
            t.move_by(o);
        }
    }
}

//! The near band of the capsule contacts: a core segment within a small
//! fraction of the shapes' size of a box or a triangle. There the separating
//! axes no longer give the gap (no axis points along the closest pair when
//! the segment passes a vertex or an edge), and the closest pair of the core
//! and the shape, computed in f64, decides.

use super::Contact;
use crate::closest::V64;
use crate::math::{Point, Real, UnitVector};

/// The near band, as a fraction of the shapes' size: below it the f32
/// closest pair, each point rounded by ~`1e-7` of that size, gives the
/// direction of the gap within less than ~`1e-3`, and the pair is taken
/// again in f64.
pub(super) const NEAR: Real = 1e-4;

/// Below this fraction of the shapes' size the f64 gap is a touch (the
/// direction of an f64 pair ~`1e-16` of the size off would turn by
/// ~`1e-7`): the separating axes give the normal, and their overlap is
/// within that gap of the exact one.
pub(super) const TOUCH: f64 = 1e-9;

/// What the f64 closest pair tells of a capsule and a shape in the near band.
pub(super) enum Near {
    /// The cores are farther apart than the radius.
    Apart,
    /// The segment meets the shape or lies within [`TOUCH`] of it.
    Touching,
    /// The contact from the closest pair.
    Contact(Contact),
}

/// The capsule's contact from the f64 closest pair `(s, x)` of its core
/// segment (radius `r`) and the shape, `x` on the shape, in a local frame:
/// `normal = (x - s) / |x - s|`, `depth = r - |x - s|`, each taken back to
/// the world (`point` for points, `direction` for the normal) and rounded
/// once to f32. `None` (as [`Near::Touching`]) when there is no pair: the
/// segment meets the shape.
pub(super) fn from_closest_pair(
    pair: Option<(V64, V64)>,
    r: f64,
    scale: Real,
    point: impl Fn(V64) -> V64,
    direction: impl Fn(V64) -> V64,
) -> Near {
    let Some((s, x)) = pair else {
        return Near::Touching;
    };
    let gap = x - s;
    let dist = gap.norm();
    if dist > r {
        return Near::Apart;
    }
    if dist <= TOUCH * f64::from(scale) {
        return Near::Touching;
    }
    let n = gap / dist;
    let world = |v: V64| Point::from(point(v).map(|x| x as Real));
    let normal = UnitVector::new_normalize(direction(n).map(|x| x as Real));
    Near::Contact(Contact { point_a: world(s + n * r), point_b: world(x), normal, depth: (r - dist) as Real })
}

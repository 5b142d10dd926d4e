//! Moving a hit point off its surface, for secondary rays.

use crate::math::{Point, Real, Vector};

/// A point moved off a surface along its normal, far enough that a ray
/// leaving it (shadow, reflection) does not hit the surface it starts on.
///
/// The offset scales with the point's own magnitude: each coordinate is moved
/// by 256 ulps of itself in the normal's direction, by adding to its integer
/// bit pattern (Wächter and Binder, "A Fast and Robust Method for Avoiding
/// Self-Intersection", Ray Tracing Gems, 2019, ch. 6). Near the origin, where
/// ulps vanish, it adds `normal / 65536` instead. A fixed epsilon cannot do
/// both: `1e-4` is below the rounding of a hit computed on a mesh whose
/// coordinates reach 300 (one f32 ulp there is 3e-5, and the hit point carries
/// several), and far above it near the origin.
///
/// `normal` should be unit length and point to the side the new ray leaves on.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{offset_ray_origin, Point, Vector};
/// let p = Point::new(300.0, 0.0, 0.0);
/// let q = offset_ray_origin(&p, &Vector::x());
/// assert!(q.x > p.x && q.x - p.x < 1e-2);
/// ```
#[must_use]
pub fn offset_ray_origin(p: &Point, normal: &Vector) -> Point {
    const NEAR_ORIGIN: Real = 1.0 / 32.0;
    const FLOAT_SCALE: Real = 1.0 / 65536.0;
    const INT_SCALE: Real = 256.0;
    Point::from(Vector::from_fn(|i, _| {
        let (x, n) = (p[i], normal[i]);
        if x.abs() < NEAR_ORIGIN {
            return x + FLOAT_SCALE * n;
        }
        // Moving the bit pattern of |x| up moves x away from 0; the sign of the
        // step says whether that is along n.
        let steps = (INT_SCALE * n) as i32;
        let toward = if x < 0.0 { -steps } else { steps };
        Real::from_bits((x.to_bits() as i32).wrapping_add(toward) as u32)
    }))
}

//! Support maps: the one question GJK and EPA ask of a convex shape.

use crate::math::{normalize_any, Point, Real, Vector};
use crate::shape::{Aabb, Capsule, Obb, Sphere, Triangle};

/// A convex shape described by its support function: the generic queries
/// ([`distance_convex`](crate::distance_convex),
/// [`intersects_convex`](crate::intersects_convex),
/// [`contact_convex`](crate::contact_convex)) run on any type that implements
/// it.
///
/// Only [`support`](SupportMap::support) is required. A rounded shape (the
/// points within a radius of a convex core: a sphere around its centre, a
/// capsule around its segment) may also give its core and radius through
/// [`core_support`](SupportMap::core_support) and
/// [`core_radius`](SupportMap::core_radius): the queries then run on the
/// cores, which are polytopes where the shape is curved, and add the radii
/// (exact and fewer iterations; Jolt's "convex radius", parry's rounded
/// shapes). The defaults take the whole shape as its own core.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{distance_convex, Point, Sphere, SupportMap, Vector};
/// /// A user's shape: the unit cube's corner `[0, 1]^3`.
/// struct UnitCube;
/// impl SupportMap for UnitCube {
///     fn support(&self, dir: &Vector) -> Point {
///         dir.map(|d| if d > 0.0 { 1.0 } else { 0.0 }).into()
///     }
/// }
/// let ball = Sphere::new(Point::new(3.0, 0.5, 0.5), 1.0);
/// assert!((distance_convex(&UnitCube, &ball).distance - 1.0).abs() < 1e-5);
/// ```
pub trait SupportMap {
    /// A point of the shape farthest along `dir` (world frame), that is a
    /// maximiser of `dir . x` over the shape. `dir` need not be unit length;
    /// for a zero `dir` any point of the shape is an answer.
    fn support(&self, dir: &Vector) -> Point;

    /// A farthest point along `dir` of the shape's core, the convex set that
    /// the shape is the points within [`core_radius`](SupportMap::core_radius)
    /// of. Defaults to [`support`](SupportMap::support) (a core radius of 0).
    #[inline]
    fn core_support(&self, dir: &Vector) -> Point {
        self.support(dir)
    }

    /// The radius around the core, `>= 0`. Defaults to 0.
    #[inline]
    fn core_radius(&self) -> Real {
        0.0
    }

    /// A point of the core, near its middle (its centre where it has one):
    /// GJK starts from the difference of the two shapes' centres, which
    /// points roughly the right way and saves iterations. Defaults to a
    /// support point.
    #[inline]
    fn core_center(&self) -> Point {
        self.core_support(&Vector::x())
    }
}

/// `h` for `d > 0`, else `-h` (`h >= 0`): a box's half extent on the side
/// of `d` (ties go to the negative side; both are farthest). Set by the sign
/// bit, without a branch: the side of a random direction is a coin toss.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn side(d: Real, h: Real) -> Real {
    let negative = u32::from(d.is_nan() || d <= 0.0);
    Real::from_bits(h.to_bits() ^ (negative << 31))
}

/// A point: its own support point; also the core of a sphere.
impl SupportMap for Point {
    #[inline]
    fn support(&self, _dir: &Vector) -> Point {
        *self
    }
}

/// `c + r dir / |dir|`; the core is the centre.
impl SupportMap for Sphere {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        match normalize_any(dir) {
            Some(u) => self.center() + u.into_inner() * self.radius(),
            None => *self.center(),
        }
    }
    #[inline]
    fn core_support(&self, _dir: &Vector) -> Point {
        *self.center()
    }
    #[inline]
    fn core_center(&self) -> Point {
        *self.center()
    }
    #[inline]
    fn core_radius(&self) -> Real {
        self.radius()
    }
}

/// The corner on the side of `dir` on each axis.
impl SupportMap for Aabb {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        let (lo, hi) = (self.min(), self.max());
        Point::new(
            if dir.x > 0.0 { hi.x } else { lo.x },
            if dir.y > 0.0 { hi.y } else { lo.y },
            if dir.z > 0.0 { hi.z } else { lo.z },
        )
    }
    #[inline]
    fn core_center(&self) -> Point {
        self.center()
    }
}

/// `c + R s`, with `s_i = ±h_i` on the side of `(R^T dir)_i`.
impl SupportMap for Obb {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        obb_support(self, dir)
    }
    #[inline]
    fn core_center(&self) -> Point {
        *self.center()
    }
}

/// [`Obb`]'s support point (the scalar form, the one used off x86_64).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn obb_support(obb: &Obb, dir: &Vector) -> Point {
    obb_support_scalar(obb, dir)
}

/// [`Obb`]'s support point: `(R^T dir)_i = u_i . dir` for the box's axes
/// `u_i` (R's columns), and `R s = sum s_i u_i`.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn obb_support_scalar(obb: &Obb, dir: &Vector) -> Point {
    let (r, h) = (obb.axes(), obb.half_extents());
    let (u0, u1, u2) = (r.column(0), r.column(1), r.column(2));
    let s = |u: &nalgebra::VectorView3<'_, Real>, h: Real| side(u.dot(dir), h);
    let (s0, s1, s2) = (s(&u0, h.x), s(&u1, h.y), s(&u2, h.z));
    obb.center() + (u0 * s0 + u1 * s1 + u2 * s2)
}

/// SSE2 (part of the x86_64 baseline): the scalar meaning above, the three
/// axes in three lanes. The products are summed in the scalar order
/// (`u_i . dir` as `x dx + y dy + z dz`, then `u_0 s_0 + u_1 s_1 + u_2 s_2`
/// added to the centre), so the point is the scalar one, bit for bit.
#[cfg(target_arch = "x86_64")]
#[inline]
fn obb_support(obb: &Obb, dir: &Vector) -> Point {
    use core::arch::x86_64::*;
    // Column-major: `m[3 i + k]` is component `k` of the axis `u_i`.
    let m = obb.axes().as_slice();
    let (c, h) = (obb.center(), obb.half_extents());
    let mut out = [0.0 as Real; 4];
    // SAFETY: SSE2 is enabled on every x86_64 target; the one store writes
    // the local array of four floats.
    unsafe {
        // Lane `i` of row `k`: component `k` of `u_i`.
        let row = |k: usize| _mm_setr_ps(m[k], m[3 + k], m[6 + k], 0.0);
        let d = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(row(0), _mm_set1_ps(dir.x)), _mm_mul_ps(row(1), _mm_set1_ps(dir.y))),
            _mm_mul_ps(row(2), _mm_set1_ps(dir.z)),
        );
        // `side`: the sign bit set where `!(u_i . dir > 0)` (NaN included).
        let negative = _mm_and_ps(_mm_cmpngt_ps(d, _mm_setzero_ps()), _mm_set1_ps(-0.0));
        let s = _mm_xor_ps(_mm_setr_ps(h.x, h.y, h.z, 0.0), negative);
        let axis = |i: usize| _mm_setr_ps(m[3 * i], m[3 * i + 1], m[3 * i + 2], 0.0);
        let lane = |i: i32| match i {
            0 => _mm_shuffle_ps::<0b00_00_00_00>(s, s),
            1 => _mm_shuffle_ps::<0b01_01_01_01>(s, s),
            _ => _mm_shuffle_ps::<0b10_10_10_10>(s, s),
        };
        let rs = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(axis(0), lane(0)), _mm_mul_ps(axis(1), lane(1))),
            _mm_mul_ps(axis(2), lane(2)),
        );
        _mm_storeu_ps(out.as_mut_ptr(), _mm_add_ps(_mm_setr_ps(c.x, c.y, c.z, 0.0), rs));
    }
    Point::new(out[0], out[1], out[2])
}

/// The segment's farther end grown by the radius; the core is the segment.
impl SupportMap for Capsule {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        let end = self.core_support(dir);
        match normalize_any(dir) {
            Some(u) => end + u.into_inner() * self.radius(),
            None => end,
        }
    }
    #[inline]
    fn core_support(&self, dir: &Vector) -> Point {
        if (self.b() - self.a()).dot(dir) > 0.0 {
            *self.b()
        } else {
            *self.a()
        }
    }
    #[inline]
    fn core_radius(&self) -> Real {
        self.radius()
    }
    #[inline]
    fn core_center(&self) -> Point {
        nalgebra::center(self.a(), self.b())
    }
}

/// The vertex of largest `dir . v` (the first of equals).
impl SupportMap for Triangle {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        // Compared relative to `a`, so far-off triangles keep their precision.
        let [a, b, c] = self.vertices();
        let (db, dc) = (dir.dot(&(b - a)), dir.dot(&(c - a)));
        if db <= 0.0 && dc <= 0.0 {
            a
        } else if db >= dc {
            b
        } else {
            c
        }
    }
    #[inline]
    fn core_center(&self) -> Point {
        let [a, b, c] = self.vertices();
        a + ((b - a) + (c - a)) / 3.0
    }
}

/// A shape behind a reference supports as the shape.
impl<T: SupportMap + ?Sized> SupportMap for &T {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        (**self).support(dir)
    }
    #[inline]
    fn core_support(&self, dir: &Vector) -> Point {
        (**self).core_support(dir)
    }
    #[inline]
    fn core_radius(&self) -> Real {
        (**self).core_radius()
    }
    #[inline]
    fn core_center(&self) -> Point {
        (**self).core_center()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rotation;
    use proxima_test_support::{gen, rng, Rng};

    /// The SSE2 support point is the scalar one bit for bit, on random boxes
    /// and directions, with components of zero, minus zero and NaN.
    #[test]
    fn box_support_matches_the_scalar_form() {
        let mut r = rng(0xB0C5);
        let specials = [0.0, -0.0, Real::NAN, 1e-30, -1e-30];
        for i in 0..20_000 {
            let rotation: Rotation = gen::rotation(&mut r);
            let centre = Point::new(r.random_range(-1e3..1e3), r.random_range(-1e3..1e3), r.random_range(-1e3..1e3));
            let half = Vector::new(r.random_range(0.0..5.0), r.random_range(0.0..5.0), r.random_range(0.0..5.0));
            let obb = Obb::new(centre, rotation, half);
            let mut dir = gen::unit_vector(&mut r) * r.random_range(1e-3..1e3);
            if i % 4 == 0 {
                dir[i % 3] = specials[(i / 4) % specials.len()];
            }
            let (fast, scalar) = (obb_support(&obb, &dir), obb_support_scalar(&obb, &dir));
            let bits = |p: &Point| p.coords.map(Real::to_bits);
            assert_eq!(bits(&fast), bits(&scalar), "box {obb:?} direction {dir:?}");
        }
    }
}

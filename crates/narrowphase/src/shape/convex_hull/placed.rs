//! A convex hull placed by a pose, as a support map: the direction turned
//! into the hull's frame, the hull's support point, placed back.

use super::ConvexHull;
use crate::gjk::SupportMap;
use crate::math::{Isometry, Point, Real, Vector};

/// A [`ConvexHull`] placed in the world by a pose (`x -> R x + t`), as a
/// [`SupportMap`] for the generic queries
/// ([`intersects_convex`](crate::intersects_convex),
/// [`contact_convex`](crate::contact_convex),
/// [`cast_shape_convex`](crate::cast_shape_convex), ...).
///
/// The support point along a world direction `d` is `R s(R^T d) + t`, with
/// `s` the hull's own [`ConvexHull::support_point`]. The rotation is turned
/// into a matrix once, stored as its columns (for `R x`) and its rows (the
/// columns of `R^T`), each padded to four lanes, so that both products are
/// three lane-wise multiply-adds. GJK starts from the placed centre of the
/// hull's box ([`SupportMap::core_center`]).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{intersects_convex, ConvexHull, Isometry, PlacedHull, Point, Vector};
/// let cube: Vec<Point> =
///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = ConvexHull::try_new(&cube).unwrap();
/// let (pa, pb) = (Isometry::identity(), Isometry::translation(0.5, 0.5, 0.5));
/// let (a, b) = (PlacedHull::new(&hull, &pa), PlacedHull::new(&hull, &pb));
/// assert!(intersects_convex(&a, &b));
/// let far = Isometry::translation(1.5, 0.0, 0.0);
/// assert!(!intersects_convex(&a, &PlacedHull::new(&hull, &far)));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PlacedHull<'a> {
    hull: &'a ConvexHull,
    /// The columns of `R`, `[x, y, z, 0]`.
    columns: [[Real; 4]; 3],
    /// The rows of `R` (the columns of `R^T`), `[x, y, z, 0]`.
    rows: [[Real; 4]; 3],
    /// The translation `t`, `[x, y, z, 0]`.
    translation: [Real; 4],
}

impl<'a> PlacedHull<'a> {
    /// `hull` placed by `pose`.
    #[inline]
    #[must_use]
    pub fn new(hull: &'a ConvexHull, pose: &Isometry) -> Self {
        // The matrix of the unit quaternion `(w, x, y, z)`:
        // `[1 - 2(yy + zz), 2(xy - wz), 2(xz + wy);
        //   2(xy + wz), 1 - 2(xx + zz), 2(yz - wx);
        //   2(xz - wy), 2(yz + wx), 1 - 2(xx + yy)]`.
        let q = pose.rotation.quaternion();
        let (w, x, y, z) = (q.w, q.i, q.j, q.k);
        let (x2, y2, z2) = (x + x, y + y, z + z);
        let (xx, yy, zz) = (x * x2, y * y2, z * z2);
        let (xy, xz, yz) = (x * y2, x * z2, y * z2);
        let (wx, wy, wz) = (w * x2, w * y2, w * z2);
        let r0 = [1.0 - (yy + zz), xy - wz, xz + wy, 0.0];
        let r1 = [xy + wz, 1.0 - (xx + zz), yz - wx, 0.0];
        let r2 = [xz - wy, yz + wx, 1.0 - (xx + yy), 0.0];
        let t = &pose.translation.vector;
        Self {
            hull,
            columns: [[r0[0], r1[0], r2[0], 0.0], [r0[1], r1[1], r2[1], 0.0], [r0[2], r1[2], r2[2], 0.0]],
            rows: [r0, r1, r2],
            translation: [t.x, t.y, t.z, 0.0],
        }
    }

    /// The hull.
    #[inline]
    #[must_use]
    pub fn hull(&self) -> &'a ConvexHull {
        self.hull
    }

    /// `R^T d`: a world direction in the hull's frame.
    #[inline]
    #[must_use]
    pub fn to_local(&self, d: &Vector) -> Vector {
        let [x, y, z, _] = combine(&self.rows, [d.x, d.y, d.z], &[0.0; 4]);
        Vector::new(x, y, z)
    }

    /// `R v`: a vector of the hull's frame (a face normal) in the world.
    #[inline]
    #[must_use]
    pub fn rotate(&self, v: &Vector) -> Vector {
        let [x, y, z, _] = combine(&self.columns, [v.x, v.y, v.z], &[0.0; 4]);
        Vector::new(x, y, z)
    }

    /// `R p + t`: a point of the hull's frame in the world.
    #[inline]
    #[must_use]
    pub fn to_world(&self, p: &Point) -> Point {
        let [x, y, z, _] = combine(&self.columns, [p.x, p.y, p.z], &self.translation);
        Point::new(x, y, z)
    }
}

/// `v_0 c_0 + v_1 c_1 + v_2 c_2 + t`, lane by lane, summed in that order
/// (so each lane is `((v_0 c_0 + v_1 c_1) + v_2 c_2) + t`, the same in the
/// SSE form and the scalar one).
#[inline]
fn combine(c: &[[Real; 4]; 3], v: [Real; 3], t: &[Real; 4]) -> [Real; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        let mut out = [0.0; 4];
        // SAFETY: SSE2 is enabled on every x86_64 target; each load reads
        // one `[f32; 4]`, the store writes one (unaligned).
        unsafe {
            let x = _mm_mul_ps(_mm_loadu_ps(c[0].as_ptr()), _mm_set1_ps(v[0]));
            let y = _mm_mul_ps(_mm_loadu_ps(c[1].as_ptr()), _mm_set1_ps(v[1]));
            let z = _mm_mul_ps(_mm_loadu_ps(c[2].as_ptr()), _mm_set1_ps(v[2]));
            let s = _mm_add_ps(_mm_add_ps(_mm_add_ps(x, y), z), _mm_loadu_ps(t.as_ptr()));
            _mm_storeu_ps(out.as_mut_ptr(), s);
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        core::array::from_fn(|l| ((v[0] * c[0][l] + v[1] * c[1][l]) + v[2] * c[2][l]) + t[l])
    }
}

/// `R s(R^T d) + t`; the core is the hull itself.
impl SupportMap for PlacedHull<'_> {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        self.to_world(&self.hull.support_point(&self.to_local(dir)))
    }

    /// The placed centre of the hull's box.
    #[inline]
    fn core_center(&self) -> Point {
        self.to_world(&self.hull.aabb().center())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rotation;

    #[test]
    fn the_placed_support_is_the_posed_one() {
        // Every vertex of a cube-ish hull, turned and moved: the placed
        // support point is the vertex the pose's own transforms give, to
        // rounding, and a vertex of the placed hull.
        let pts: Vec<Point> = (0..8)
            .map(|i| Point::new((i & 1) as Real * 1.5 - 0.2, ((i >> 1) & 1) as Real, (i >> 2) as Real * 0.7))
            .collect();
        let hull = ConvexHull::new(&pts);
        let pose = Isometry::from_parts(Vector::new(3.0, -2.0, 0.5).into(), Rotation::new(Vector::new(0.3, -1.1, 0.7)));
        let placed = PlacedHull::new(&hull, &pose);
        for k in 0..64 {
            let a = k as Real * 0.37;
            let d = Vector::new(a.cos(), (1.3 * a).sin(), (0.7 * a).cos() - 0.2);
            let local = pose.rotation.inverse_transform_vector(&d);
            assert!((placed.to_local(&d) - local).norm() < 1e-6);
            let expect = pose.transform_point(&hull.support_point(&local));
            let got = placed.support(&d);
            assert!((got - expect).norm() < 1e-5, "{got} {expect}");
            let best =
                hull.vertices().iter().map(|v| pose.transform_point(v).coords.dot(&d)).fold(Real::MIN, Real::max);
            assert!(got.coords.dot(&d) >= best - 1e-5);
        }
        assert!((placed.core_center() - pose.transform_point(&hull.aabb().center())).norm() < 1e-6);
        let n = Vector::new(0.2, -0.5, 0.9);
        assert!((placed.rotate(&n) - pose.rotation * n).norm() < 1e-6);
    }

    #[test]
    fn the_support_point_is_the_vertex_its_index_names() {
        // Points on a sphere (every one a vertex): hulls of up to 32
        // vertices read the point back from their coordinate blocks, larger
        // ones from the vertices; both give the vertex the index names, bit
        // for bit.
        for n in [5usize, 17, 32, 33, 90] {
            let golden = core::f64::consts::PI * (3.0 - 5f64.sqrt());
            let pts: Vec<Point> = (0..n)
                .map(|i| {
                    let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
                    let (r, t) = ((1.0 - y * y).sqrt(), golden * i as f64);
                    Point::new((r * t.cos()) as Real, y as Real, (r * t.sin()) as Real * 1.3)
                })
                .collect();
            let hull = ConvexHull::new(&pts);
            assert_eq!(hull.vertices().len(), n);
            for k in 0..200 {
                let a = k as Real * 0.61;
                let d = Vector::new(a.sin(), (2.3 * a).cos(), (0.9 * a).sin() - 0.3);
                assert_eq!(hull.support_point(&d), hull.vertices()[hull.support_index(&d)], "{n} vertices, {d:?}");
            }
        }
    }
}

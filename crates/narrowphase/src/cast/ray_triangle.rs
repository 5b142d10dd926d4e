//! Ray against triangle: the watertight test.

use super::ray::{Ray, RayHit};
use crate::math::{Point, Real, UnitVector, Vector};
use crate::shape::Triangle;

/// A ray prepared for the watertight triangle test of [`cast_ray_triangle`]:
/// `kz`, the axis of the direction's largest component, the other two axes
/// `kx`, `ky` (swapped when `d_kz < 0` to keep the winding, and so the edge
/// functions' signs) and the shear `sx = d_kx / d_kz`, `sy = d_ky / d_kz`,
/// `sz = 1 / d_kz`. They depend on the ray only, so a caller testing many
/// triangles (a mesh, a wide kernel) computes them once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatertightRay {
    origin: Point,
    axes: [usize; 3],
    shear: [Real; 3],
}

impl WatertightRay {
    /// The permutation and shear of `ray`. Always inlined: out of line, the
    /// prepared ray is returned through memory and read back piecewise by
    /// the mesh traversal (measured on a one-mesh `Scene`'s rays).
    #[inline(always)]
    #[must_use]
    pub fn new(ray: &Ray) -> Self {
        let d = ray.dir();
        let kz = d.iamax();
        let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
        if d[kz] < 0.0 {
            core::mem::swap(&mut kx, &mut ky);
        }
        Self { origin: *ray.origin(), axes: [kx, ky, kz], shear: [d[kx] / d[kz], d[ky] / d[kz], 1.0 / d[kz]] }
    }

    /// The ray's origin.
    #[inline]
    pub fn origin(&self) -> &Point {
        &self.origin
    }

    /// The axes `[kx, ky, kz]`.
    #[inline]
    pub fn axes(&self) -> [usize; 3] {
        self.axes
    }

    /// The shear `[sx, sy, sz]`.
    #[inline]
    pub fn shear(&self) -> [Real; 3] {
        self.shear
    }

    /// The `toi` where the ray crosses the triangle `[a, b, c]`, if in
    /// `[0, max_toi]` (the test of [`cast_ray_triangle`], without the normal).
    #[inline]
    #[must_use]
    pub fn toi(&self, tri: &[Point; 3], max_toi: Real) -> Option<Real> {
        let ([u, v, w], [az, bz, cz]) = self.edge_functions(tri)?;
        let sz = self.shear[2];
        let det = u + v + w;
        // `((U a_z + V b_z + W c_z) / det) sz`: the crossing's `z` offset,
        // then its multiple of `d_kz`. Scaling last keeps the intermediate
        // values at the size of the coordinates: `U sz` overflowed for a
        // direction near `f32::MIN_POSITIVE` (`sz ~ 1e38`) though `toi`
        // itself fits (B30). The wide kernels use the same order.
        let t = (u * az + v * bz + w * cz) / det * sz;
        (0.0..=max_toi).contains(&t).then_some(t)
    }

    /// [`WatertightRay::toi`] and [`WatertightRay::barycentrics`] from one
    /// computation of the edge functions: `(toi, [u, v])`.
    #[inline]
    #[must_use]
    pub fn toi_and_barycentrics(&self, tri: &[Point; 3], max_toi: Real) -> Option<(Real, [Real; 2])> {
        let ([u, v, w], [az, bz, cz]) = self.edge_functions(tri)?;
        let det = u + v + w;
        // The same expression, in the same order, as `toi`: the same bits.
        let t = (u * az + v * bz + w * cz) / det * self.shear[2];
        (0.0..=max_toi).contains(&t).then_some((t, [v / det, w / det]))
    }

    /// The barycentric coordinates `[u, v]` of the point where the ray
    /// crosses the triangle's plane, when the ray crosses the triangle
    /// (ignoring `max_toi`): that point is `a + u (b - a) + v (c - a)`, with
    /// `u, v >= 0`, `u + v <= 1`.
    ///
    /// The edge functions of [`WatertightRay::toi`] are the point's weights
    /// up to their sum: `point = (U a + V b + W c) / (U + V + W)`, so
    /// `u = V / det`, `v = W / det` (Woop, Benthin and Wald, section 3). Each
    /// is a quotient of rounded products: within a few ulps of 1 (relative to
    /// the triangle), not bit-exact against another formula.
    #[inline]
    #[must_use]
    pub fn barycentrics(&self, tri: &[Point; 3]) -> Option<[Real; 2]> {
        let ([u, v, w], _) = self.edge_functions(tri)?;
        let det = u + v + w;
        Some([v / det, w / det])
    }

    /// The edge functions `[U, V, W]` of the triangle in the ray's sheared
    /// frame and its vertices' `z` (relative to the origin), or `None` when
    /// the ray misses the triangle or lies parallel to its plane (`det = 0`).
    #[inline(always)]
    fn edge_functions(&self, [a, b, c]: &[Point; 3]) -> Option<([Real; 3], [Real; 3])> {
        let [kx, ky, kz] = self.axes;
        let [sx, sy, _] = self.shear;
        let (a, b, c) = (a - self.origin, b - self.origin, c - self.origin);
        let shear = |v: &Vector| (v[kx] - sx * v[kz], v[ky] - sy * v[kz]);
        let ((ax, ay), (bx, by), (cx, cy)) = (shear(&a), shear(&b), shear(&c));

        // Two-sided: all edge functions of one sign (zeros allowed: closed edges).
        let mixed = |u: f64, v: f64, w: f64| (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0);
        let mut u = cx * by - cy * bx;
        let mut v = ax * cy - ay * cx;
        let mut w = bx * ay - by * ax;
        if u == 0.0 || v == 0.0 || w == 0.0 {
            // The products of two f32 are exact in f64, so these signs are
            // exact. The sign test runs on them before they are rounded back:
            // a value below f32's subnormal range would round to -0 or +0 and
            // pass any sign (B25: a ray nearly in the triangle's plane).
            let f = |p: Real, q: Real, r: Real, s: Real| p as f64 * q as f64 - r as f64 * s as f64;
            let (u64, v64, w64) = (f(cx, by, cy, bx), f(ax, cy, ay, cx), f(bx, ay, by, ax));
            if mixed(u64, v64, w64) {
                return None;
            }
            (u, v, w) = (u64 as Real, v64 as Real, w64 as Real);
        } else if mixed(u as f64, v as f64, w as f64) {
            return None;
        }
        if u + v + w == 0.0 {
            return None; // parallel to the plane, or degenerate
        }
        Some(([u, v, w], [a[kz], b[kz], c[kz]]))
    }
}

/// First hit of a ray on a triangle, seen from either side.
///
/// Woop, Benthin and Wald, "Watertight Ray/Triangle Intersection" (JCGT
/// 2013): translate the vertices to the ray origin, permute the axes so the
/// ray's largest component is `z`, and shear so the ray becomes the `+z` axis:
/// `x' = x - (d_x / d_z) z`, `y' = y - (d_y / d_z) z`. The triangle is then hit
/// iff the 2D edge functions `U = c'_x b'_y - c'_y b'_x`, `V = a'_x c'_y -
/// a'_y c'_x`, `W = b'_x a'_y - b'_y a'_x` share a sign, and
/// `toi = (U a_z + V b_z + W c_z) / (d_z (U + V + W))`.
///
/// Why this and not Moller-Trumbore: an edge shared by two mesh triangles gets
/// exactly opposite edge-function values in the two (the same rounded products,
/// subtracted in the opposite order), so a ray through a shared edge hits at
/// least one of them: no hairline gaps between triangles. Moller-Trumbore's
/// barycentrics are rounded per triangle, and on our shipped meshes rays
/// through shared edges slipped between both neighbours. An edge function that
/// rounds to exactly 0 is recomputed in f64 so the sign is decided right.
///
/// Conventions:
/// - two-sided: back faces are hit too; the normal is the face normal
///   `±(e1 x e2) / |e1 x e2|` on the side the ray comes from (`normal . dir <= 0`);
/// - edge rule: closed triangle, a ray through an edge or vertex hits;
/// - a ray parallel to the triangle's plane (`U + V + W = 0`), including one
///   lying in it, misses: the triangle is a surface with no thickness;
/// - a degenerate (zero-area) triangle misses;
/// - an origin on the triangle hits at `toi = 0`; `toi` must lie in
///   `[0, max_toi]`.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_triangle, Point, Ray, Triangle, Vector};
/// let t = Triangle::new(Point::new(-1.0, -1.0, 2.0), Point::new(1.0, -1.0, 2.0), Point::new(0.0, 1.0, 2.0));
/// let hit = cast_ray_triangle(&Ray::new(Point::origin(), Vector::z(), 10.0), &t).unwrap();
/// assert_eq!(hit.toi, 2.0);
/// assert_eq!(hit.normal.into_inner(), -Vector::z()); // faces the ray's origin
/// ```
#[inline]
#[must_use]
pub fn cast_ray_triangle(ray: &Ray, tri: &Triangle) -> Option<RayHit> {
    let t = WatertightRay::new(ray).toi(&[tri.a, tri.b, tri.c], ray.max_toi())?;
    let d = ray.dir();
    let n = (tri.b - tri.a).cross(&(tri.c - tri.a));
    let n = UnitVector::try_new(n, 0.0)?;
    let normal = if n.dot(d) > 0.0 { -n } else { n };
    Some(RayHit { toi: t, normal })
}

/// A ray's hit on a triangle with where on the triangle it lies (see
/// [`cast_ray_triangle_uv`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleRayHit {
    /// The hit exactly as [`cast_ray_triangle`] gives it.
    pub hit: RayHit,
    /// The barycentric weight of vertex `b`: the hit point is
    /// `a + u (b - a) + v (c - a)`.
    pub u: Real,
    /// The barycentric weight of vertex `c`.
    pub v: Real,
}

/// [`cast_ray_triangle`] with the hit point's barycentric coordinates (for
/// interpolating vertex normals, texture coordinates or colours): the same
/// hit, bit for bit, and `u, v >= 0`, `u + v <= 1` up to rounding, from the
/// same edge functions (see [`WatertightRay::barycentrics`]).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_triangle, cast_ray_triangle_uv, Point, Ray, Triangle, Vector};
/// let t = Triangle::new(Point::new(0.0, 0.0, 2.0), Point::new(4.0, 0.0, 2.0), Point::new(0.0, 4.0, 2.0));
/// let ray = Ray::new(Point::new(1.0, 2.0, 0.0), Vector::z(), 10.0);
/// let hit = cast_ray_triangle_uv(&ray, &t).unwrap();
/// assert_eq!(Some(hit.hit), cast_ray_triangle(&ray, &t));
/// assert_eq!((hit.u, hit.v), (0.25, 0.5)); // the point (1, 2, 2)
/// ```
#[inline]
#[must_use]
pub fn cast_ray_triangle_uv(ray: &Ray, tri: &Triangle) -> Option<TriangleRayHit> {
    let (toi, [u, v]) = WatertightRay::new(ray).toi_and_barycentrics(&[tri.a, tri.b, tri.c], ray.max_toi())?;
    let n = (tri.b - tri.a).cross(&(tri.c - tri.a));
    let n = UnitVector::try_new(n, 0.0)?;
    let normal = if n.dot(ray.dir()) > 0.0 { -n } else { n };
    Some(TriangleRayHit { hit: RayHit { toi, normal }, u, v })
}

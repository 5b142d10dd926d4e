//! Closest point on a triangle.

use super::precise::closest_point_triangle_f64;
use crate::math::{Point, Real, Vector};
use crate::shape::Triangle;

/// Below this `sin^2` of the best-conditioned vertex's angle (see
/// [`best_conditioned_normal`]) the triangle is a sliver and the closest
/// point is computed in f64 ([`closest_point_sliver`]): in f32 the plane
/// normal's direction error `eps / sin` (up to `6e-7` here), times the
/// point's distance, would move the projected point by more than `1e-6` of
/// the triangle's size.
const SLIVER_SIN2: Real = 1e-2;

/// Below this `sin^2` of the angle at `a`, the normal is recomputed at the
/// vertex opposite the longest edge (see [`best_conditioned_normal`]).
const RECOMPUTE_NORMAL_SIN2: Real = 1e-2;

/// The point of triangle `abc` closest to `p`.
///
/// Finds the Voronoi region of `p` (three vertices, three edges, the face)
/// as in Ericson, Real-Time Collision Detection, 5.1.5, and projects onto
/// that feature. Three changes make it robust on thin triangles:
/// - the edge-region signs `va, vb, vc` are the triple products
///   `n . ((c - b) x (p - b))`, `n . ((a - c) x (p - c))`,
///   `n . ((b - a) x (p - a))` with `n = (b - a) x (c - a)`. They equal
///   Ericson's differences of products of dot products (Lagrange's identity)
///   but do not cancel catastrophically: on slivers Ericson's form picked the
///   wrong region, with errors up to the triangle's size;
/// - in the face region the point is the orthogonal projection onto the
///   plane, `p - n (n . (p - a)) / |n|^2` (exact up to the direction error of
///   `n`);
/// - slivers (`sin^2 < 1e-2` even at the best vertex) take the same steps
///   in f64 (in f32 a point on a needle triangle got a closest point off it),
///   with the face point the barycentric combination
///   `a + (b - a) vb / s + (c - a) vc / s`, `s = va + vb + vc`, which stays
///   on the triangle;
/// - when the angle at `a` is small or near 180 degrees (`sin^2 < 1e-2`),
///   `n` is recomputed from the two shorter edges, at the vertex opposite
///   the longest one, where the sine is largest (law of sines), and the
///   projection is taken from that vertex (from `a`, the projection of a
///   point near a sliver landed off the triangle).
///
/// Degenerate triangles: collinear vertices fall into a vertex or edge region
/// (the segment they collapse to), or get `s = 0`, handled by the closest of
/// the three edges; three equal vertices return that vertex.
#[must_use]
pub fn closest_point_triangle(p: &Point, tri: &Triangle) -> Point {
    closest_point_triangle_region(p, tri).0
}

/// [`closest_point_triangle`], and when `p` lies in the face region (its
/// projection onto the plane falls inside the triangle, the closest point
/// being that projection) its signed height `n . (p - o)` over the plane
/// along the unnormalised normal `n` of [`face_normal`]; `None` on the
/// vertex and edge regions, on degenerate triangles and on slivers.
#[inline(always)]
pub(crate) fn closest_point_triangle_region(p: &Point, tri: &Triangle) -> (Point, Option<Real>) {
    let (a, b, c) = (tri.a, tri.b, tri.c);
    let ab = b - a;
    let ac = c - a;
    // A degenerate triangle (two equal vertices, or collinear within the
    // rounding of the cross product) is the segment(s) it collapses to; the
    // region tests below would divide 0 by 0 on it.
    let Some((n, o, uv2)) = face_normal(tri) else {
        return (closest_on_edges(p, tri), None);
    };
    let n2 = n.norm_squared();
    if n2 <= SLIVER_SIN2 * uv2 {
        return (closest_point_sliver(p, tri), None);
    }
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, None); // vertex region A
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, None); // vertex region B
    }
    let vc = n.dot(&ab.cross(&ap));
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, None); // edge region AB
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, None); // vertex region C
    }
    let vb = n.dot(&(a - c).cross(&cp));
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, None); // edge region AC
    }
    let va = n.dot(&(c - b).cross(&bp));
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, None); // edge region BC
    }
    // Face region.
    let denom = va + vb + vc;
    if denom.is_nan() || denom <= 0.0 {
        // Degenerate triangle that slipped past the region tests (rounding):
        // fall back to the closest of the three edges.
        return (closest_on_edges(p, tri), None);
    }
    let height = n.dot(&(p - o));
    (p - n * (height / n2), Some(height))
}

/// [`closest_point_triangle`] for a sliver (`sin^2 < 1e-2` even at its best
/// vertex), all in f64. In f32 the normal of a sliver carries the
/// cancellation of its cross product (relative error `eps / sin`), and so do
/// the triple products that pick the region and weigh the face point: on a
/// 24-long needle 0.003 wide a point of the triangle got a closest point
/// 4.5e-4 away. In f64 every product of two f32 differences is exact and the
/// error `1e-16 / sin` relative. Same regions as the f32 path
/// (Ericson 5.1.5 with triple products); the face point is the barycentric
/// combination, which stays on the triangle ([`closest_point_triangle_f64`]).
/// Collinear vertices go to the closest of the three edges.
#[cold]
#[inline(never)]
fn closest_point_sliver(p: &Point, tri: &Triangle) -> Point {
    let v = tri.vertices().map(|x| x.coords.cast::<f64>());
    match closest_point_triangle_f64(&p.coords.cast(), &v) {
        Some(x) => Point::from(x.map(|x| x as Real)),
        None => closest_on_edges(p, tri),
    }
}

/// The triangle's normal `n = (b - a) x (c - a)` (not normalised), the vertex
/// `o` it is computed at and `|u|^2 |v|^2` of the two edges `u`, `v` whose
/// cross product it is; `None` for a degenerate triangle (two equal
/// vertices, or collinear within the rounding of the cross product:
/// `|n|^2 <= eps^2 |b - a|^2 |c - a|^2`).
///
/// `n` is computed at `a`, unless the angle there has `sin^2 < 1e-2`: then at
/// the vertex opposite the longest edge ([`best_conditioned_normal`]), so its
/// direction error is about `eps` on slivers and needles too. Any point of
/// the plane is `o + x` with `n . x = 0`; heights over the plane are measured
/// from `o`.
#[inline]
pub(crate) fn face_normal(tri: &Triangle) -> Option<(Vector, Point, Real)> {
    let (ab, ac) = (tri.b - tri.a, tri.c - tri.a);
    let n = ab.cross(&ac);
    let n2 = n.norm_squared();
    let uv2 = ab.norm_squared() * ac.norm_squared();
    if n2 <= Real::EPSILON * Real::EPSILON * uv2 {
        return None;
    }
    if n2 < RECOMPUTE_NORMAL_SIN2 * uv2 {
        return Some(best_conditioned_normal(tri));
    }
    Some((n, tri.a, uv2))
}

/// The triangle's normal `(b - a) x (c - a)`, computed at the vertex `o`
/// opposite the longest edge as the cross product of the two shorter edges,
/// with `o` and `|u|^2 |v|^2` of those edges.
///
/// The rounding error of `u x v` is about `eps |u| |v|` in every direction,
/// while `|u x v| = |u| |v| sin`: its direction error is `eps / sin`. By the
/// law of sines the vertex opposite the longest edge has the largest sine
/// (on a sliver with a tiny angle at `a`, about 1 instead of 1e-3), and the
/// cyclic products `(c - b) x (a - b)` and `(a - c) x (b - c)` equal
/// `(b - a) x (c - a)` exactly in real arithmetic, so the orientation is kept.
#[cold]
fn best_conditioned_normal(tri: &Triangle) -> (Vector, Point, Real) {
    let (a, b, c) = (tri.a, tri.b, tri.c);
    let (ab2, bc2, ca2) = ((b - a).norm_squared(), (c - b).norm_squared(), (a - c).norm_squared());
    if ab2 >= bc2 && ab2 >= ca2 {
        ((a - c).cross(&(b - c)), c, ca2 * bc2)
    } else if bc2 >= ca2 {
        ((b - a).cross(&(c - a)), a, ab2 * ca2)
    } else {
        ((c - b).cross(&(a - b)), b, bc2 * ab2)
    }
}

fn closest_on_edges(p: &Point, tri: &Triangle) -> Point {
    use super::segment::closest_point_segment;
    let candidates = [
        closest_point_segment(p, &tri.a, &tri.b),
        closest_point_segment(p, &tri.b, &tri.c),
        closest_point_segment(p, &tri.c, &tri.a),
    ];
    let mut best = candidates[0];
    let mut best_d = Real::INFINITY;
    for q in candidates {
        let d = (p - q).norm_squared();
        if d < best_d {
            best_d = d;
            best = q;
        }
    }
    best
}

/// Distance from `p` to the triangle.
#[inline]
#[must_use]
pub fn distance_point_triangle(p: &Point, tri: &Triangle) -> Real {
    (p - closest_point_triangle(p, tri)).norm()
}

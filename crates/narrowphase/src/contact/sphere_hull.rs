//! Contact between a sphere and a placed convex hull, in closed form: the
//! hull point closest to the centre, or the face of least penetration.

use super::manifold::{single, ContactManifold};
use super::Contact;
use crate::math::{normalize_any, within_distance, Isometry, Point, Real, UnitVector, Vector};
use crate::shape::{ConvexHull, Sphere};

/// Feature id of a contact on the interior of face `k`: `k` itself.
pub(super) const FACE_ID: u32 = 0;
/// Feature id of a contact on the interior of edge `e`: `EDGE_ID | e`.
pub(super) const EDGE_ID: u32 = 1 << 30;
/// Feature id of a contact at vertex `v`: `VERTEX_ID | v`.
pub(super) const VERTEX_ID: u32 = 2 << 30;

/// The hull's side of a sphere-hull contact, in the hull's local frame.
pub(super) struct HullSide {
    /// The hull point: the closest to the centre (centre outside), or the
    /// centre's projection on the face of least penetration (inside).
    pub(super) point: Point,
    /// Unit normal from the sphere to the hull.
    pub(super) normal: Vector,
    /// Signed distance from the centre to the hull surface: positive
    /// outside, `<= 0` inside.
    pub(super) distance: Real,
    /// The feature of the hull holding `point` (see [`FACE_ID`]).
    pub(super) feature: u32,
}

/// The hull side of the contact of a centre `c` (hull frame) with `hull`,
/// `None` when `c` is farther than `reach` from the hull.
///
/// With `s_k = n_k . c - o_k` the signed distance from face `k`'s plane:
/// - all `s_k <= 0`: `c` is in the solid hull; the face of greatest `s_k`
///   (least penetration, the first on a tie) gives `point = c - s_k n_k`,
///   `normal = -n_k`, `distance = s_k` (a centre on a face, edge or vertex
///   has `s_k = 0`: depth `r` along that face's normal);
/// - else `c` is outside and `distance >= max s_k > 0`, so
///   `max s_k > reach` is a miss without more work. The closest point `p`
///   lies on a face whose plane `c` is in front of (`c - p` is a
///   non-negative mix of the normals of the faces at `p`, and has a positive
///   dot product with itself). On such a face the projection
///   `q = c - s_k n_k` is `p` when it lies in the polygon (then `c - q` is
///   along `n_k`, in the normal cone at `q`); when no front face holds its
///   projection, `p` lies on an edge and is the nearest of the edges'
///   closest points (Ericson, Real-Time Collision Detection, 5.1.2); an end
///   of the segment is a vertex.
///
/// The face-or-edge decision is the exact sign of
/// `(n_k x (v_{i+1} - v_i)) . (c - v_i)` for each edge of the loop: no
/// tolerance. Both answers agree on the polygon's boundary up to the face's
/// planarity (its vertices lie within [`ConvexHull::tolerance`] of its
/// plane), so a sign flipped by rounding moves the point and the distance by
/// at most about that tolerance and the normal by at most that over the
/// distance.
pub(super) fn hull_side(c: &Point, hull: &ConvexHull, reach: Real) -> Option<HullSide> {
    let faces = hull.faces();
    let gap = |k: usize| faces[k].normal().dot(&c.coords) - faces[k].offset();
    let (mut top, mut top_s) = (0, Real::NEG_INFINITY);
    for k in 0..faces.len() {
        let s = gap(k);
        if s > top_s {
            (top, top_s) = (k, s);
        }
    }
    let on_face = |k: usize, s: Real| {
        let n = faces[k].normal().into_inner();
        HullSide { point: c - n * s, normal: -n, distance: s, feature: FACE_ID | k as u32 }
    };
    if top_s <= 0.0 {
        return Some(on_face(top, top_s));
    }
    if top_s > reach {
        return None;
    }
    // The front face farthest from the centre first: it holds the closest
    // point most often.
    if holds_projection(hull, top, c) {
        return Some(on_face(top, top_s));
    }
    for k in 0..faces.len() {
        let s = gap(k);
        if k != top && s > 0.0 && holds_projection(hull, k, c) {
            return (s <= reach).then(|| on_face(k, s));
        }
    }
    let verts = hull.vertices();
    let mut best: Option<(Vector, Real, u32)> = None;
    for (e, edge) in hull.edges().iter().enumerate() {
        let [a, b] = edge.vertices;
        let (pa, pb) = (verts[a as usize], verts[b as usize]);
        let ab = pb - pa;
        let ac = c - pa;
        // t = clamp((c - a) . (b - a) / |b - a|^2, 0, 1); the gap from the
        // segment's point to c is taken as `(c - a) - t (b - a)`, relative
        // to the segment, not through the rounded point itself.
        let along = ac.dot(&ab);
        let len2 = ab.norm_squared();
        let (t, feature) = if along <= 0.0 {
            (0.0, VERTEX_ID | a)
        } else if along >= len2 {
            (1.0, VERTEX_ID | b)
        } else {
            (along / len2, EDGE_ID | e as u32)
        };
        let to_c = ac - ab * t;
        let d2 = to_c.norm_squared();
        if best.is_none_or(|(_, b2, _)| d2 < b2) {
            best = Some((to_c, d2, feature));
        }
    }
    let (to_c, d2, feature) = best?;
    if !within_distance(&to_c, reach) {
        return None;
    }
    // `to_c` carries a rounding of about `eps (|c| + L)` (`L` the hull's
    // size), which turns its direction by that over `|to_c|`. A centre
    // within `64 eps (|c| + L)` of an edge or vertex (on it, placed by a
    // rounded pose) has no direction to trust: it takes the normal of the
    // front face of greatest `s_k`, which is one of that feature's faces
    // (the others have `s_k < 0` by more than the rounding), so the normal
    // stays in the feature's normal cone.
    let noise = 64.0 * Real::EPSILON * (c.coords.amax() + 2.0 * hull.aabb().half_extents().amax());
    let face_normal = -faces[top].normal().into_inner();
    let normal =
        if d2 > noise * noise { normalize_any(&-to_c).map_or(face_normal, |n| n.into_inner()) } else { face_normal };
    Some(HullSide { point: c - to_c, normal, distance: d2.sqrt(), feature })
}

/// True when `c`'s projection on face `k`'s plane lies in its polygon: on
/// the inner side of each edge `v_i -> v_{i+1}` of the loop
/// (counter-clockwise seen from outside, inner side
/// `(n x (v_{i+1} - v_i)) . (x - v_i) >= 0`). The projection differs from
/// `c` along `n` only, which that product ignores, so `c` is tested.
#[inline]
pub(super) fn holds_projection(hull: &ConvexHull, k: usize, c: &Point) -> bool {
    let n = hull.faces()[k].normal().into_inner();
    let lp = hull.face_vertices(k);
    let verts = hull.vertices();
    let mut from = verts[lp[lp.len() - 1] as usize];
    for &i in lp {
        let to = verts[i as usize];
        if n.cross(&(to - from)).dot(&(c - from)) < 0.0 {
            return false;
        }
        from = to;
    }
    true
}

/// The world normal, `point_a`, `point_b` and depth of a hull side found
/// for `sphere`'s centre.
fn to_world(sphere: &Sphere, pose: &Isometry, side: &HullSide) -> (UnitVector, Point, Point, Real) {
    let r = sphere.radius();
    // Renormalised: the rotation is unit only up to rounding.
    let normal = UnitVector::new_normalize(pose.rotation * side.normal);
    let point_a = sphere.center() + normal.into_inner() * r;
    (normal, point_a, pose.transform_point(&side.point), r - side.distance)
}

/// The contact between a solid sphere (A) and the solid convex hull `hull`
/// placed by `pose` (B: a point `x` of the hull's frame is at `pose * x`);
/// `None` when they are disjoint. Touching gives `Some` with `depth == 0`.
///
/// The centre is taken into the hull's frame once, `c = pose^-1 * center`
/// (a difference of nearby world coordinates, exact far from the origin
/// too), and everything else is computed there. Centre outside the hull:
/// `point_b` is the hull point `p` closest to `c` (on a face, an edge or a
/// vertex), `d = |c - p|`, `normal = (p - c) / d`, `depth = r - d`. Centre
/// inside (or on the surface): the face of least penetration `s <= 0`
/// (signed distance of `c` from its plane; the first face on a tie, so a
/// centre on an edge or vertex takes one of its faces) gives
/// `normal = -n_face` (into the hull), `depth = r - s`, and `point_b` the
/// centre's projection on that face. Always `point_a = center + r normal`,
/// so `point_a - point_b = depth normal`. A zero radius is a point: a
/// contact exactly when it lies in the hull.
///
/// The face-or-edge decision takes no tolerance: its two sides agree on a
/// polygon's boundary up to the hull's planar tolerance
/// ([`ConvexHull::tolerance`]), which bounds what rounding there can change.
/// A centre outside but within `64 eps (|c| + L)` of an edge or a vertex
/// (`L` the hull's size, `eps = f32::EPSILON`), where `p - c` is mostly
/// rounding, takes the normal of its nearest face plane among that
/// feature's faces.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_sphere_hull, ConvexHull, Isometry, Point, Sphere, Vector};
/// // The cube [0, 1]^3, placed 10 units up the z axis.
/// let corners: Vec<Point> =
///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = ConvexHull::new(&corners);
/// let pose = Isometry::translation(0.0, 0.0, 10.0);
/// // Over the top face, 0.3 above it, radius 0.5.
/// let ball = Sphere::new(Point::new(0.5, 0.5, 11.3), 0.5);
/// let c = contact_sphere_hull(&ball, &hull, &pose).unwrap();
/// assert!((c.depth - 0.2).abs() < 1e-5 && (c.normal.z + 1.0).abs() < 1e-6);
/// // Beyond the edge x = 1, z = 1: the normal runs from the centre to the edge.
/// let ball = Sphere::new(Point::new(1.3, 0.5, 11.4), 0.6);
/// let c = contact_sphere_hull(&ball, &hull, &pose).unwrap();
/// assert!((c.depth - 0.1).abs() < 1e-5 && (c.normal.x + 0.6).abs() < 1e-5);
/// assert!(contact_sphere_hull(&Sphere::new(Point::new(0.5, 0.5, 12.0), 0.5), &hull, &pose).is_none());
/// ```
#[must_use]
pub fn contact_sphere_hull(sphere: &Sphere, hull: &ConvexHull, pose: &Isometry) -> Option<Contact> {
    let c = pose.inverse_transform_point(sphere.center());
    let side = hull_side(&c, hull, sphere.radius())?;
    let (normal, point_a, point_b, depth) = to_world(sphere, pose, &side);
    Some(Contact { point_a, point_b, normal, depth: depth.max(0.0) })
}

/// The manifold of a sphere (A) and a placed convex hull (B) within
/// `prediction` (negative or NaN counts as 0): the one point of
/// [`contact_sphere_hull`], or for a centre at most `r + prediction` from
/// the hull the speculative point on the closest points (negative depth).
///
/// The point's id names the hull feature it lies on, so it persists while
/// the sphere stays over the same feature: the face index `k` for a face
/// (and for every contact of a centre inside), `1 << 30 | e` for the interior
/// of edge `e` (an index into [`ConvexHull::edges`]), `2 << 30 | v` for
/// vertex `v`.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_sphere_hull, ConvexHull, Isometry, Point, Sphere};
/// let corners: Vec<Point> =
///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = ConvexHull::new(&corners);
/// let ball = Sphere::new(Point::new(0.5, 0.5, 1.55), 0.5); // 0.05 above the top face
/// let m = contact_manifold_sphere_hull(&ball, &hull, &Isometry::identity(), 0.1).unwrap();
/// assert_eq!(m.len(), 1);
/// assert!((m.points()[0].depth + 0.05).abs() < 1e-5);
/// assert!(contact_manifold_sphere_hull(&ball, &hull, &Isometry::identity(), 0.0).is_none());
/// ```
#[must_use]
pub fn contact_manifold_sphere_hull(
    sphere: &Sphere,
    hull: &ConvexHull,
    pose: &Isometry,
    prediction: Real,
) -> Option<ContactManifold> {
    let prediction = if prediction > 0.0 { prediction } else { 0.0 };
    let c = pose.inverse_transform_point(sphere.center());
    let side = hull_side(&c, hull, sphere.radius() + prediction)?;
    let (normal, point_a, point_b, depth) = to_world(sphere, pose, &side);
    Some(single(normal, point_a, point_b, depth, side.feature))
}

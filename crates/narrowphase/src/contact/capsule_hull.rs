//! Contact between a capsule and a placed convex hull, in closed form: the
//! closest points of the core segment and the hull, or the separating axis
//! of least overlap when the segment meets the hull.

use super::manifold::{single, ContactManifold, Gathered, ManifoldPoint};
use super::manifold_face::FACE_COSINE;
use super::sphere_hull::{holds_projection, EDGE_ID, FACE_ID, VERTEX_ID};
use super::Contact;
use crate::closest::closest_points_segment_segment;
use crate::math::{normalize_any, Isometry, Point, Real, UnitVector, Vector};
use crate::shape::{Capsule, ConvexHull};

/// An edge axis `d x e` shorter than this times `|d| |e|` (the segment and
/// the edge within ~`1e-5` rad of parallel) is skipped: its direction is
/// rounding, and the faces beside the edge give the same separations.
const PARALLEL_SINE: Real = 1e-5;

/// The hull's side of a capsule-hull contact, hull frame.
struct Found {
    /// Core point (on the segment).
    core: Point,
    /// Unit normal from the capsule to the hull.
    normal: Vector,
    /// Signed gap from the core segment to the hull (`<= 0` when they meet).
    gap: Real,
    /// Feature id of the hull (see `sphere_hull.rs`).
    feature: u32,
}

/// The contact of the core segment `[p, q]` (hull frame) with `hull`, `None`
/// when farther apart than `reach`.
///
/// With `a_k = n_k . p - o_k` and `b_k = n_k . (q - p)`, the segment point
/// `p + t (q - p)` is under face `k`'s plane for `a_k + t b_k <= 0`;
/// clipping `[0, 1]` by every face (Cyrus-Beck) tells whether the segment
/// meets the hull, and `max_k min(a_k, a_k + b_k) > reach` is a separating
/// plane (a miss).
/// - apart: the closest pair is an endpoint over a face's interior (its
///   projection in the polygon), or the segment and a hull edge (across the
///   edge, or by a vertex): the least of those pairs;
///   `normal = (x - s) / |x - s|`;
/// - meeting, or apart by less than `64 eps (|p| + |q| + L)` (where the
///   direction of the pair is rounding): the axis of greatest separation
///   (least overlap) over the Minkowski faces of the hull and the segment:
///   the face normals, separation `min(a_k, a_k + b_k)`, and for each edge
///   `e` whose two face normals lie on either side of the plane normal to
///   `d = q - p`, the axis `u = d x e` turned between those normals,
///   separation `u . (p - v_e)`. Those are all the face normals of the
///   hull minus the segment, so the greatest separation is the signed gap
///   (minus the penetration) when the segment meets the hull. The core
///   point is the segment's point deepest along the axis: an endpoint, the
///   middle of the part under the face for a segment parallel to it
///   (within [`PARALLEL_SINE`]), the point closest to the edge for an edge.
fn segment_side(p: &Point, q: &Point, hull: &ConvexHull, reach: Real) -> Option<Found> {
    let d = q - p;
    let faces = hull.faces();
    let (mut enter, mut exit) = (0.0 as Real, 1.0 as Real);
    let (mut best_face, mut best_s) = (0, Real::NEG_INFINITY);
    for (k, f) in faces.iter().enumerate() {
        let a = f.normal().dot(&p.coords) - f.offset();
        let b = f.normal().dot(&d);
        let s = a.min(a + b);
        if s > best_s {
            if s > reach {
                return None;
            }
            (best_face, best_s) = (k, s);
        }
        // a + t b <= 0: t <= -a / b for b > 0, t >= -a / b for b < 0.
        if b > 0.0 {
            exit = exit.min(-a / b);
        } else if b < 0.0 {
            enter = enter.max(-a / b);
        } else if a > 0.0 {
            exit = Real::NEG_INFINITY;
        }
    }
    let noise = noise(p, q, hull);
    if enter > exit {
        if let Some(found) = closest_pair(p, q, hull, reach) {
            if found.gap > noise {
                return Some(found);
            }
        } else {
            return None;
        }
    }
    Some(deepest_axis(p, q, hull, best_face, best_s, (enter, exit)))
}

/// The rounding of a gap or height of the segment `[p, q]` (hull frame)
/// over `hull`: `64 eps (|p| + |q| + L)` (max norms, `L` the hull's size).
fn noise(p: &Point, q: &Point, hull: &ConvexHull) -> Real {
    64.0 * Real::EPSILON * (p.coords.amax() + q.coords.amax() + 2.0 * hull.aabb().half_extents().amax())
}

/// The apart branch of [`segment_side`]: the least of the endpoints' pairs
/// over a face and the segment's pairs with the edges; `None` beyond
/// `reach`.
///
/// The hull point `y` of the closest pair lies on a face `k` with
/// `n_k . (x - y) > 0` (see `sphere_hull.rs`), so the segment is not all
/// behind that face's plane: only the edges of faces with
/// `max(a_k, a_k + b_k) > 0` are tried. An endpoint under every plane (a
/// rounding inside: the segment then touches) gives gap 0.
fn closest_pair(p: &Point, q: &Point, hull: &ConvexHull, reach: Real) -> Option<Found> {
    let faces = hull.faces();
    // Pairs no closer than `bound` (the reach, then the best pair's gap)
    // cannot be the answer.
    let mut bound = reach;
    let mut best: Option<Found> = None;
    let mut take = |core: Point, on_hull: Point, feature: u32, bound: &mut Real| {
        let gap = (on_hull - core).norm();
        if gap <= *bound && best.as_ref().is_none_or(|b| gap < b.gap) {
            *bound = gap;
            best = Some(Found { core, normal: on_hull - core, gap, feature });
        }
    };
    for end in [p, q] {
        // The face the endpoint is farthest in front of holds its
        // projection most often: it is tried first.
        let gap = |k: usize| faces[k].normal().dot(&end.coords) - faces[k].offset();
        let (mut top, mut top_s) = (0, Real::NEG_INFINITY);
        for k in 0..faces.len() {
            let s = gap(k);
            if s > top_s {
                (top, top_s) = (k, s);
            }
        }
        if top_s <= 0.0 {
            take(*end, *end, FACE_ID, &mut bound);
            continue;
        }
        let over = if holds_projection(hull, top, end) {
            Some(top)
        } else {
            (0..faces.len()).find(|&k| k != top && gap(k) > 0.0 && gap(k) <= bound && holds_projection(hull, k, end))
        };
        if let Some(k) = over.filter(|&k| gap(k) <= bound) {
            take(*end, end - faces[k].normal().into_inner() * gap(k), FACE_ID | k as u32, &mut bound);
        }
    }
    let d = q - p;
    let front = |k: u32| {
        let f = &faces[k as usize];
        let a = f.normal().dot(&p.coords) - f.offset();
        a > 0.0 || a + f.normal().dot(&d) > 0.0
    };
    // Bounding spheres: an edge whose midpoint is farther than
    // `bound + |d| / 2 + |e| / 2` from the segment's has no closer pair.
    let (mid, half) = (p + d * 0.5, 0.5 * d.norm());
    let verts = hull.vertices();
    for (e, edge) in hull.edges().iter().enumerate() {
        let [i, j] = edge.vertices;
        let (a, b) = (verts[i as usize], verts[j as usize]);
        let reach_e = bound + half + 0.5 * (b - a).norm();
        if (mid - (a + (b - a) * 0.5)).norm_squared() > reach_e * reach_e {
            continue;
        }
        if !front(edge.faces[0]) && !front(edge.faces[1]) {
            continue;
        }
        let pair = closest_points_segment_segment(p, q, &a, &b);
        let feature = if pair.point_b == a {
            VERTEX_ID | i
        } else if pair.point_b == b {
            VERTEX_ID | j
        } else {
            EDGE_ID | e as u32
        };
        take(pair.point_a, pair.point_b, feature, &mut bound);
    }
    let mut found = best?;
    // A zero gap is left to the caller (below its noise it takes the axes).
    found.normal = normalize_any(&found.normal).map_or(Vector::zeros(), |n| n.into_inner());
    Some(found)
}

/// The meeting branch of [`segment_side`]: the axis of greatest separation
/// over the face normals (the best `(k, s)` found already) and the edge axes.
fn deepest_axis(p: &Point, q: &Point, hull: &ConvexHull, k: usize, s: Real, (enter, exit): (Real, Real)) -> Found {
    let d = q - p;
    let faces = hull.faces();
    let verts = hull.vertices();
    let mut best_edge: Option<(usize, Vector, Real)> = None;
    let mut best_s = s;
    let d_len = d.norm();
    for (e, edge) in hull.edges().iter().enumerate() {
        let [n0, n1] = edge.faces.map(|f| faces[f as usize].normal().into_inner());
        let (s0, s1) = (n0.dot(&d), n1.dot(&d));
        // The arc from n0 to n1 crosses the great circle normal to d.
        if (s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0) {
            continue;
        }
        let a = verts[edge.vertices[0] as usize];
        let ev = verts[edge.vertices[1] as usize] - a;
        let u = d.cross(&ev);
        let len = u.norm();
        if len <= PARALLEL_SINE * d_len * ev.norm() || len == 0.0 {
            continue;
        }
        let u = if u.dot(&(n0 + n1)) < 0.0 { -u / len } else { u / len };
        let sep = u.dot(&(p - a));
        if sep > best_s {
            (best_s, best_edge) = (sep, Some((e, u, sep)));
        }
    }
    if let Some((e, u, sep)) = best_edge {
        let [i, j] = hull.edges()[e].vertices.map(|v| verts[v as usize]);
        let core = closest_points_segment_segment(p, q, &i, &j).point_a;
        return Found { core, normal: -u, gap: sep, feature: EDGE_ID | e as u32 };
    }
    let n = faces[k].normal().into_inner();
    let b = n.dot(&d);
    let core = if b.abs() <= PARALLEL_SINE * d_len {
        // Parallel to the face: the middle of the part under every plane
        // (the whole segment when that part is empty: it is then apart).
        let (lo, hi) = if enter <= exit { (enter, exit) } else { (0.0, 1.0) };
        p + d * (0.5 * (lo + hi))
    } else if b > 0.0 {
        *p
    } else {
        *q
    };
    Found { core, normal: -n, gap: s, feature: FACE_ID | k as u32 }
}

/// The world normal, points and depth of a found contact for `capsule`.
fn to_world(r: Real, pose: &Isometry, f: &Found) -> (UnitVector, Point, Point, Real) {
    let normal = UnitVector::new_normalize(pose.rotation * f.normal);
    let n = f.normal;
    // point_a on the capsule, point_b its image `depth` back along the
    // normal: on the hull (the closest point, or on the support plane).
    let point_a = pose.transform_point(&(f.core + n * r));
    let point_b = pose.transform_point(&(f.core + n * f.gap));
    (normal, point_a, point_b, r - f.gap)
}

/// The contact between a solid capsule (A) and the solid convex hull `hull`
/// placed by `pose` (B); `None` when they are disjoint. Touching gives
/// `Some` with `depth == 0`.
///
/// The core segment is taken into the hull's frame once. Segment apart from
/// the hull: the closest points `s` (segment) and `x` (hull) give
/// `normal = (x - s) / |x - s|` and `depth = r - |x - s|`; they are an
/// endpoint and its closest hull point, or the segment and a hull edge.
/// Segment meeting the hull (or within `64 eps` of the coordinates of it,
/// where the direction of the closest pair is rounding): the separating axis
/// of least overlap `o` over the hull's face normals and the crosses of the
/// segment with the hull's edges whose faces straddle it (the faces of the
/// Minkowski difference), `depth = r + o`, normal along the axis into the
/// hull. Edge axes within `1e-5` rad of the segment's direction are
/// skipped (their faces give the same separation). Witness points:
/// `point_a = s + r normal` on the capsule, `point_b = point_a - depth
/// normal`. A zero-length segment is a sphere.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_capsule_hull, Capsule, ConvexHull, Isometry, Point};
/// let corners: Vec<Point> =
///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = ConvexHull::new(&corners);
/// // Lying across the top face, 0.4 above it, radius 0.5.
/// let cap = Capsule::new(Point::new(-1.0, 0.5, 1.4), Point::new(2.0, 0.5, 1.4), 0.5);
/// let c = contact_capsule_hull(&cap, &hull, &Isometry::identity()).unwrap();
/// assert!((c.depth - 0.1).abs() < 1e-5 && (c.normal.z + 1.0).abs() < 1e-5);
/// // Pushed through the cube along x: the least overlap is up, 0.6 + 0.5.
/// let through = Capsule::new(Point::new(-1.0, 0.5, 0.6), Point::new(2.0, 0.5, 0.6), 0.5);
/// let c = contact_capsule_hull(&through, &hull, &Isometry::identity()).unwrap();
/// assert!((c.depth - 0.9).abs() < 1e-5 && (c.normal.z + 1.0).abs() < 1e-5);
/// ```
#[must_use]
pub fn contact_capsule_hull(capsule: &Capsule, hull: &ConvexHull, pose: &Isometry) -> Option<Contact> {
    let (p, q) = (pose.inverse_transform_point(capsule.a()), pose.inverse_transform_point(capsule.b()));
    let found = segment_side(&p, &q, hull, capsule.radius())?;
    let (normal, point_a, point_b, depth) = to_world(capsule.radius(), pose, &found);
    Some(Contact { point_a, point_b, normal, depth: depth.max(0.0) })
}

/// Id bit of the points of a capsule lying on hull face `k`:
/// `FACE_PAIR | k << 1 | end`, `end` 0 for the clipped end nearer the
/// capsule's first endpoint, 1 for the other. Distinct from the one-point
/// ids (`FACE_ID`, `EDGE_ID`, `VERTEX_ID` of `sphere_hull.rs`), which
/// leave bit 29 clear for hulls of fewer than `2^28` faces.
const FACE_PAIR: u32 = 1 << 29;

/// The manifold of a capsule (A) and a placed convex hull (B) within
/// `prediction` (negative or NaN counts as 0): `None` exactly when the core
/// segment is farther than `r + prediction` from the hull (with
/// `prediction = 0`, exactly when [`contact_capsule_hull`] is `None`).
///
/// The normal is that of [`contact_capsule_hull`] (or of the closest points
/// when apart, a speculative contact of negative depth). When it is within
/// 1e-3 rad of a face normal of the hull (cosine `0.999_999_5`, the
/// reference-face rule of
/// [`contact_manifold_capsule_obb`](crate::contact_manifold_capsule_obb)),
/// that face is the reference face and its normal the manifold's: the core
/// segment is clipped to the face's side planes (the planes through its
/// edges normal to it) and each end `s` of the clipped segment, at signed
/// height `h` over the face's plane, is a point of depth `r - h`, kept when
/// `>= -prediction`: `point_a = s - r n`, `point_b = s - h n` (its
/// projection on the face), `n` the face's outward normal. A capsule lying
/// on a face thus gets two points (ids `1 << 29 | k << 1 | end`, `k` the
/// face, `end` 0 or 1 by the capsule's endpoint); a tilted one whose upper end is more than
/// `r + prediction` over the face keeps its lower end only. When the
/// clipped ends are all shallower than the contact by more than the
/// rounding `64 eps (|p| + |q| + L)` (hull frame: the closest or deepest
/// point lies off the face's prism, on a neighbour face within 1e-3 rad of
/// it say), or clipping leaves none, the manifold is the contact's one
/// point, so that the deepest point is never lost. Otherwise (an edge or
/// vertex normal) the one point of
/// [`contact_capsule_hull`], whose id names the hull feature as
/// [`contact_manifold_sphere_hull`](crate::contact_manifold_sphere_hull)'s.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_capsule_hull, Capsule, ConvexHull, Isometry, Point};
/// let corners: Vec<Point> =
///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = ConvexHull::new(&corners);
/// // Lying on the top face, 0.4 above it, radius 0.5, hanging over x = 0.
/// let rod = Capsule::new(Point::new(-1.0, 0.5, 1.4), Point::new(0.7, 0.5, 1.4), 0.5);
/// let m = contact_manifold_capsule_hull(&rod, &hull, &Isometry::identity(), 0.0).unwrap();
/// assert_eq!(m.len(), 2); // clipped at the edge x = 0, and at the rod's end x = 0.7
/// assert!(m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-5));
/// ```
#[must_use]
pub fn contact_manifold_capsule_hull(
    capsule: &Capsule,
    hull: &ConvexHull,
    pose: &Isometry,
    prediction: Real,
) -> Option<ContactManifold> {
    let prediction = if prediction > 0.0 { prediction } else { 0.0 };
    let r = capsule.radius();
    let (p, q) = (pose.inverse_transform_point(capsule.a()), pose.inverse_transform_point(capsule.b()));
    let found = segment_side(&p, &q, hull, r + prediction)?;
    let (normal, point_a, point_b, depth) = to_world(r, pose, &found);
    let Some(k) = reference_face(hull, &found).filter(|_| p != q) else {
        return Some(single(normal, point_a, point_b, depth, found.feature));
    };
    let face = &hull.faces()[k];
    let n = face.normal().into_inner();
    let mut out = Gathered::new();
    if let Some((lo, hi)) = clip_to_face(hull, k, &p, &q) {
        let d = q - p;
        // Ends nearly together (a segment over a corner of the face) are
        // one point, at their middle.
        let (ends, count) = if hi - lo > 1e-4 { ([(0, lo), (1, hi)], 2) } else { ([(0, 0.5 * (lo + hi)); 2], 1) };
        for &(end, t) in &ends[..count] {
            let s = p + d * t;
            let height = n.dot(&s.coords) - face.offset();
            let depth = r - height;
            if depth >= -prediction {
                let point_a = pose.transform_point(&(s - n * r));
                let point_b = pose.transform_point(&(s - n * height));
                out.push(ManifoldPoint { point_a, point_b, depth, id: FACE_PAIR | (k as u32) << 1 | end });
            }
        }
    }
    // The clipped ends keep the contact's depth (one of them is the closest
    // or deepest point) unless that point lies off the face's prism: on a
    // neighbour face within 1e-3 rad of this one, or beyond its side
    // planes for a segment dipping under its plane. The one point is then
    // kept, so that the deepest point is never lost.
    let deepest = out.points().iter().map(|x| x.depth).fold(Real::NEG_INFINITY, Real::max);
    if deepest < depth - noise(&p, &q, hull) {
        return Some(single(normal, point_a, point_b, depth, found.feature));
    }
    let c = Contact { point_a, point_b, normal, depth };
    Some(out.finish_with_id(UnitVector::new_normalize(pose.rotation * -n), &c, found.feature))
}

/// The face whose outward normal is within [`FACE_COSINE`] of the found
/// contact's reversed normal (the face itself for a face contact).
fn reference_face(hull: &ConvexHull, found: &Found) -> Option<usize> {
    if found.feature & (EDGE_ID | VERTEX_ID) == 0 {
        // FACE_ID is 0: the id is the face's index.
        return Some(found.feature as usize);
    }
    let (mut best, mut best_cos) = (0, Real::NEG_INFINITY);
    for (k, f) in hull.faces().iter().enumerate() {
        let cos = -f.normal().dot(&found.normal);
        if cos > best_cos {
            (best, best_cos) = (k, cos);
        }
    }
    (best_cos >= FACE_COSINE).then_some(best)
}

/// The parameters `[lo, hi]` of the part of the segment `[p, q]` whose
/// projection on face `k`'s plane lies in its polygon (Cyrus-Beck against
/// the side planes: with `s_i = n x (v_{i+1} - v_i)`, the point
/// `p + t (q - p)` is on the inner side of edge `i` for
/// `s_i . (p - v_i) + t s_i . (q - p) >= 0`), `None` when empty.
fn clip_to_face(hull: &ConvexHull, k: usize, p: &Point, q: &Point) -> Option<(Real, Real)> {
    let n = hull.faces()[k].normal().into_inner();
    let lp = hull.face_vertices(k);
    let verts = hull.vertices();
    let d = q - p;
    let (mut lo, mut hi) = (0.0 as Real, 1.0 as Real);
    let mut from = verts[lp[lp.len() - 1] as usize];
    for &i in lp {
        let to = verts[i as usize];
        let side = n.cross(&(to - from));
        let (a, b) = (side.dot(&(p - from)), side.dot(&d));
        if b > 0.0 {
            lo = lo.max(-a / b);
        } else if b < 0.0 {
            hi = hi.min(-a / b);
        } else if a < 0.0 {
            return None;
        }
        from = to;
    }
    (lo <= hi).then_some((lo, hi))
}

//! Contact manifolds of polytope pairs with a hull (hull-hull, hull-box):
//! GJK/EPA give the normal and depth, then the classic reference/incident
//! face clipping gives up to four points, so a hull rests on a face the way
//! a box does (Ericson, Real-Time Collision Detection, 8.3.4; Box3D's
//! `convex_manifold.c` does the same after its SAT).

use proxima_narrowphase::{
    contact_convex, contact_hull_obb, ContactManifold, ManifoldPoint, Obb, Point, Real, UnitVector, Vector,
};
use smallvec::SmallVec;

use crate::hull::{ConvexRef, PosedHull};

/// The contact normal must be within this cosine of a face normal (about
/// 0.8 degrees) for that face to be the reference face; otherwise the
/// contact is an edge or vertex contact and keeps EPA's single point. A
/// resting face contact's normal is the face normal to EPA's accuracy.
const FACE_COSINE: Real = 0.9999;

/// B's face is the reference face only when it is better aligned with the
/// contact normal than A's by more than this (in cosine).
const REFERENCE_BIAS: Real = 1e-4;

/// A convex polytope placed in the world: a hull or a box.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Polytope<'a> {
    Hull(PosedHull<'a>),
    Box(Obb),
}

/// A face's polygon, world frame, counter-clockwise seen from outside.
type Polygon = SmallVec<[Point; 8]>;

impl Polytope<'_> {
    /// Face `k`'s outward unit normal (world).
    fn normal(&self, k: usize) -> Vector {
        match self {
            Self::Hull(h) => h.placed.rotate(h.hull.faces()[k].normal()),
            Self::Box(o) => o.axes().column(k / 2) * if k % 2 == 0 { 1.0 } else { -1.0 },
        }
    }

    /// Face `k`'s polygon into `out` (cleared first).
    fn polygon(&self, k: usize, out: &mut Polygon) {
        out.clear();
        match self {
            Self::Hull(h) => {
                let vertices = h.hull.vertices();
                out.extend(h.hull.face_vertices(k).iter().map(|&v| h.pose.transform_point(&vertices[v as usize])));
            }
            Self::Box(o) => {
                // Face `s e_i`: corners `s h_i e_i ± h_j e_j ± h_l e_l`, counter-
                // clockwise about `e_i = e_j x e_l` in the order (+,+), (-,+),
                // (-,-), (+,-); reversed for the face facing `-e_i`.
                let (i, s) = (k / 2, if k % 2 == 0 { 1.0 } else { -1.0 });
                let (j, l) = ((i + 1) % 3, (i + 2) % 3);
                let h = o.half_extents();
                let mut corner = |u: Real, v: Real| {
                    let mut local = Vector::zeros();
                    (local[i], local[j], local[l]) = (s * h[i], u * h[j], v * h[l]);
                    out.push(o.to_world(&local));
                };
                let order = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
                if s > 0.0 {
                    order.iter().for_each(|&(u, v)| corner(u, v));
                } else {
                    order.iter().rev().for_each(|&(u, v)| corner(u, v));
                }
            }
        }
    }

    /// The face whose normal is most aligned with `n`, and the cosine.
    fn best_face(&self, n: &Vector) -> (usize, Real) {
        let best = |b: (usize, Real), f: (usize, Real)| if f.1 > b.1 { f } else { b };
        match self {
            // In the hull's frame: `n` turned once, not every face normal;
            // the faces scanned four at a time.
            Self::Hull(h) => {
                let local = h.placed.to_local(n);
                let k = h.hull.face_towards(&local);
                (k, h.hull.faces()[k].normal().dot(&local))
            }
            Self::Box(_) => (0..6).map(|k| (k, self.normal(k).dot(n))).fold((0, Real::NEG_INFINITY), best),
        }
    }

    fn as_convex(&self) -> ConvexRef<'_> {
        match self {
            Self::Hull(h) => ConvexRef::Hull(*h),
            Self::Box(o) => ConvexRef::Obb(*o),
        }
    }
}

/// The manifold of two polytopes within `prediction` (normal from A to B):
/// EPA's contact, then, when its normal is within [`FACE_COSINE`] of a face
/// normal of either shape, that face (the better aligned) as the reference
/// face and the other shape's face most opposed to it as the incident face;
/// the incident polygon clipped by the reference polygon's side planes
/// (Sutherland-Hodgman), and every clipped vertex at most `prediction`
/// above the reference plane a point, its depth its distance below it. The
/// normal is then the reference face's, and EPA's point joins the clipped
/// ones when it is deeper than all of them. Otherwise, or when clipping
/// keeps no point, EPA's one point. Ids: the reference and incident faces
/// and the point's place in the clipped polygon.
pub(crate) fn manifold_polytopes(a: &Polytope<'_>, b: &Polytope<'_>, prediction: Real) -> Option<ContactManifold> {
    // A hull against a box: the separating-axis test (exact; GJK/EPA where
    // it defers). Otherwise GJK/EPA on the support maps.
    let c = match (a, b) {
        (Polytope::Hull(h), Polytope::Box(o)) => contact_hull_obb(h.hull, h.pose, o, prediction),
        (Polytope::Box(o), Polytope::Hull(h)) => contact_hull_obb(h.hull, h.pose, o, prediction).map(|c| c.flipped()),
        _ => contact_convex(&a.as_convex(), &b.as_convex(), prediction),
    }?;
    let single = || {
        let point = ManifoldPoint { point_a: c.point_a, point_b: c.point_b, depth: c.depth, id: 0 };
        ContactManifold::new(c.normal, &[point])
    };
    let n = c.normal.into_inner();
    let (ka, cos_a) = a.best_face(&n);
    let (kb, cos_b) = b.best_face(&-n);
    let aligned = cos_a.max(cos_b);
    if aligned.is_nan() || aligned < FACE_COSINE {
        return single();
    }
    // Reference on A (normal n_ref = A's face normal, from A to B), or on B
    // (its face normal points from B to A: the manifold normal is its
    // opposite). Face against face, both align to rounding: A unless B's
    // face is clearly better, so the choice (and the ids) stay put.
    let reference_is_a = cos_a >= cos_b - REFERENCE_BIAS;
    let (reference, k_ref, incident) = if reference_is_a { (a, ka, b) } else { (b, kb, a) };
    let n_ref = reference.normal(k_ref);
    let (k_inc, _) = incident.best_face(&-n_ref);
    let (mut clip, mut incident_loop) = (Polygon::new(), Polygon::new());
    reference.polygon(k_ref, &mut clip);
    incident.polygon(k_inc, &mut incident_loop);
    // Each point carries a feature key: an incident vertex's place in its
    // loop, or for a point made by a side plane, a mix of that plane and
    // the keys of the edge it cut; it stays the same while the same
    // features touch, so a solver can warm start the point.
    let mut poly: Keyed = incident_loop.iter().enumerate().map(|(j, p)| (*p, j as u32)).collect();
    let mut scratch = Keyed::new();
    let offset = n_ref.dot(&clip[0].coords);
    for i in 0..clip.len() {
        let (v, w) = (clip[i], clip[(i + 1) % clip.len()]);
        // Outward side normal of the edge `v -> w` of a counter-clockwise loop.
        let side = (w - v).cross(&n_ref);
        clip_by_plane(&poly, &side, side.dot(&v.coords), i as u32, &mut scratch);
        std::mem::swap(&mut poly, &mut scratch);
        if poly.is_empty() {
            return single();
        }
    }
    let faces = ((k_ref as u32 & 0x3F) << 26) | ((k_inc as u32 & 0x3F) << 20) | (u32::from(!reference_is_a) << 19);
    let mut points: SmallVec<[ManifoldPoint; 8]> = SmallVec::new();
    for &(p, key) in &poly {
        let depth = offset - n_ref.dot(&p.coords);
        if depth < -prediction {
            continue;
        }
        let on_reference = p + n_ref * depth;
        let (point_a, point_b) = if reference_is_a { (on_reference, p) } else { (p, on_reference) };
        let mut id = faces | (key & 0x7FFFF);
        // Keys of distinct features can collide (they are mixed into 19
        // bits): ids must be distinct within a manifold.
        while points.iter().any(|q| q.id == id) {
            id = faces | ((id + 1) & 0x7FFFF);
        }
        points.push(ManifoldPoint { point_a, point_b, depth, id });
    }
    if points.is_empty() {
        return single();
    }
    // A deep overlap whose deepest point the clipping cut away (it lies
    // beyond the reference face's sides) keeps EPA's point too, so the
    // manifold's deepest point is the penetration depth.
    let slack = 1e-5 * (1.0 + c.point_a.coords.abs().max());
    if points.iter().all(|p| p.depth < c.depth - slack) {
        let mut id = faces | 0x7FFFF;
        while points.iter().any(|q| q.id == id) {
            id = faces | ((id + 1) & 0x7FFFF);
        }
        points.push(ManifoldPoint { point_a: c.point_a, point_b: c.point_b, depth: c.depth, id });
    }
    let normal = UnitVector::new_normalize(if reference_is_a { n_ref } else { -n_ref });
    ContactManifold::new(normal, &points)
}

/// A polygon whose points carry feature keys.
type Keyed = SmallVec<[(Point, u32); 12]>;

/// Sutherland-Hodgman: the part of convex polygon `poly` on the side
/// `side . x <= limit` (side plane number `plane`), into `out`. A point
/// made on an edge gets a key mixed from the plane and the edge's keys.
fn clip_by_plane(poly: &Keyed, side: &Vector, limit: Real, plane: u32, out: &mut Keyed) {
    out.clear();
    for i in 0..poly.len() {
        let ((p, kp), (q, kq)) = (poly[i], poly[(i + 1) % poly.len()]);
        let (dp, dq) = (side.dot(&p.coords) - limit, side.dot(&q.coords) - limit);
        if dp <= 0.0 {
            out.push((p, kp));
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            let key = 0x40000 | (plane & 0x3F) << 12 | (kp.min(kq).wrapping_mul(31) ^ kp.max(kq)) & 0xFFF;
            out.push((p + (q - p) * (dp / (dp - dq)), key));
        }
    }
}

/// A world shape as a [`Polytope`]: a hull or a box; `None` otherwise.
pub(crate) fn as_polytope(shape: &crate::shape::WorldShape) -> Option<Polytope<'_>> {
    use crate::shape::WorldShape as S;
    match shape {
        S::ConvexHull(hull, pose) => Some(Polytope::Hull(PosedHull::new(hull, pose))),
        S::Obb(o) => Some(Polytope::Box(*o)),
        S::Aabb(a) => Some(Polytope::Box(Obb::from_aabb(a))),
        _ => None,
    }
}

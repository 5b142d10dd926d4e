//! Contact between a placed convex hull and an oriented box by the
//! separating-axis test over the faces of both and the edge pairs that form
//! faces of their Minkowski difference (the box's edges run along three
//! directions only, so the edge pairs are found from the hull's face
//! normals alone).

use smallvec::SmallVec;

use super::hull_obb_faces::{face_block, FaceBlock, LocalBox};
use super::Contact;
use crate::closest::closest_points_segment_segment;
use crate::gjk::contact_convex;
use crate::math::{Isometry, Point, Real, UnitVector, Vector};
use crate::relative::MovedBy;
use crate::shape::{ConvexHull, Obb, PlacedHull};

/// Below this sine between a hull edge and a box axis, a crossing of their
/// Gauss-map arcs is skipped: the Minkowski face it makes is a sliver whose
/// half-space cuts at most about this fraction of the shapes' size off the
/// difference, below the hull's own planar tolerance (`1e-5` of its size).
const SLIVER_SINE: Real = 1e-6;

/// Between [`SLIVER_SINE`] and this sine, the edge axis `e x u / |e x u|`
/// carries the f32 rounding of `e x u` amplified by `1 / sine` (over `1e-5`
/// of the shapes' size in the separation): the contact is then left to
/// GJK and EPA on the support maps, which need no axis.
const EDGE_MIN_SINE: Real = 1e-2;

/// A face normal within this of the great circle normal to a box axis
/// (`|n . u_i|`) is on it: an arc from it crosses there, at the face's own
/// axis.
const ARC_END: Real = 1e-6;

/// Features of the partner within this fraction of the shapes' size of
/// the deepest are tied (an edge or a face parallel to the contact face).
const TIE: Real = 1e-5;

/// The largest hull the test runs on (larger ones go to GJK/EPA).
const MAX_VERTICES: usize = 32;

/// A feature's polygon being clipped: a hull face (at most `MAX_VERTICES`
/// points) clipped by four planes, or a box face by a hull face's sides
/// (each plane adds at most one point).
type Loop = SmallVec<[Point; MAX_VERTICES + 4]>;

/// The axis of least penetration (greatest separation) found so far.
#[derive(Clone, Copy, Debug)]
enum Axis {
    /// Face `k` of the hull.
    HullFace(usize),
    /// The box's face of outward normal `sign * u_i`.
    BoxFace(usize, Real),
    /// Hull edge `e` against the box's edges along `u_i`: the unit axis
    /// `d` (hull frame, out of the hull) and the box edge's point nearest
    /// the hull edge's line (offsets along the box's other two axes).
    Edges { edge: usize, axis: usize, d: Vector, corner: Point },
}

/// The contact of a convex hull placed by `pose` (A) with an oriented box
/// (B), with the conventions of [`contact_convex`]: a unit normal from the
/// hull to the box, `point_a` on the hull, `point_b` on the box,
/// `point_a - point_b ≈ depth * normal`; `None` when they are more than
/// `prediction` apart (negative or NaN counts as 0).
///
/// In the hull's frame, the separation along a unit axis `d` is
/// `min_box d . x - max_hull d . y`; the shapes overlap exactly when no
/// face normal of their Minkowski difference separates them, and the
/// penetration depth is then the least overlap over those normals (the
/// separating-axis theorem for polytopes). The normals are the hull's face
/// normals (the box's support along `-n_k` against the face's plane), the
/// box's three axes both ways (the hull's extent along each, from its
/// vertices), and `e x u_i` for each hull edge `e` and box axis `u_i` whose
/// arcs on the Gauss map cross: the hull edge's arc runs between its two
/// faces' normals `n_0`, `n_1`, and the arcs of the box edges along `u_i`
/// (negated, for the difference) tile the great circle normal to `u_i`, so
/// they cross exactly when `(n_0 . u_i) (n_1 . u_i) < 0`; the crossing
/// `n_0 |n_1 . u_i| + n_1 |n_0 . u_i|` picks the box edge. The separation
/// along such an axis is the offset between the two edges' lines.
///
/// - Overlapping or touching: the depth is the least overlap, the normal
///   that axis; the points are the box's deepest corner and its projection
///   on the hull face, the hull's deepest vertex and its projection on the
///   box face, or the closest points of the two edges.
/// - Apart by at most `prediction`, and where an edge pair is too near
///   parallel for its axis to be trusted in f32 (a sine below `1e-2`):
///   [`contact_convex`] on the placed hull and the box (GJK's exact
///   distance and closest points, EPA).
/// - A face separating them by more than `prediction` ends the test early.
///
/// The hull's solid is taken as its face planes (the same as
/// [`ConvexHull::contains_point`] and the ray cast), which agree with its
/// vertices to the hull's planar tolerance ([`ConvexHull::tolerance`]).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_hull_obb, ConvexHull, Isometry, Obb, Point, Rotation, Vector};
/// let cube: Vec<Point> =
///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = ConvexHull::try_new(&cube).unwrap();
/// // A box whose lowest face sits 0.25 inside the cube's top face.
/// let lid = Obb::new(Point::new(0.5, 1.25, 0.5), Rotation::identity(), Vector::new(0.5, 0.5, 0.5));
/// let c = contact_hull_obb(&hull, &Isometry::identity(), &lid, 0.0).unwrap();
/// assert!((c.depth - 0.25).abs() < 1e-6 && (c.normal.y - 1.0).abs() < 1e-6);
/// let far = Obb::new(Point::new(0.5, 2.0, 0.5), Rotation::identity(), Vector::new(0.5, 0.5, 0.5));
/// assert!(contact_hull_obb(&hull, &Isometry::identity(), &far, 0.25).is_none());
/// ```
#[must_use]
pub fn contact_hull_obb(hull: &ConvexHull, pose: &Isometry, obb: &Obb, prediction: Real) -> Option<Contact> {
    let reach = if prediction > 0.0 { prediction } else { 0.0 };
    let generic = || contact_convex_about_box(hull, pose, obb, prediction);
    // The test's buffers hold a hull of up to `MAX_VERTICES` vertices on the
    // stack (at most `2 V - 4` faces); a larger one goes to GJK/EPA, whose
    // cost grows with the hull's size far more slowly than the edge pairs'.
    if hull.vertices().len() > MAX_VERTICES {
        return generic();
    }
    // The box in the hull's frame: centre `c`, unit axes `u`, half extents `h`.
    let rotation = &pose.rotation;
    let c = pose.inverse_transform_point(obb.center());
    let axes = obb.axes();
    let u = [0, 1, 2].map(|i| rotation.inverse_transform_vector(&axes.column(i).into_owned()));
    let h = obb.half_extents();

    // Box faces `±u_i` first (three scans of the hull, the likeliest to
    // separate): the hull's extent `[lo, hi]` along `u_i` against the box's
    // `[u_i . c - h_i, u_i . c + h_i]`, as `(sep, i, sign)`. The scans keep
    // every vertex's coordinates in the box's basis, `p_i(v) = u_i . v`.
    let mut box_faces = [(0.0, 0, 0.0); 6];
    let mut p: [SmallVec<[Real; 32]>; 3] = Default::default();
    let mut cl = [0.0; 3];
    for (i, ui) in u.iter().enumerate() {
        let (lo, hi) = hull.project(ui, &mut p[i]);
        cl[i] = ui.dot(&c.coords);
        box_faces[2 * i] = (lo - (cl[i] + h[i]), i, 1.0);
        box_faces[2 * i + 1] = ((cl[i] - h[i]) - hi, i, -1.0);
    }
    if box_faces.iter().any(|f| f.0 > reach) {
        return None;
    }

    // Hull faces, four at a time: the box's least `n . x` is
    // `n . c - sum |n . u_i| h_i`. The products `n . u_i` and their sign bits
    // are kept for the edge pairs.
    let faces = hull.faces();
    let local = LocalBox { center: c, axes: u, half: *h };
    let mut blocks: SmallVec<[FaceBlock; MAX_VERTICES / 2]> = SmallVec::with_capacity(hull.face_lanes().len());
    let (mut best, mut best_sep) = (Axis::HullFace(0), Real::NEG_INFINITY);
    for (k, planes) in hull.face_lanes().iter().enumerate() {
        let block = face_block(planes, &local, ARC_END);
        if block.sep.iter().any(|&x| x > reach) {
            return None;
        }
        for (l, &sep) in block.sep.iter().enumerate() {
            if sep > best_sep {
                (best, best_sep) = (Axis::HullFace(4 * k + l), sep);
            }
        }
        blocks.push(block);
    }
    // `n_f . u_i`, and face `f`'s sign bits at `4 i` (positive) and
    // `12 + 4 i` (on the circle).
    let blocks = blocks.as_slice();
    let along = |f: usize| {
        let b = &blocks[f / 4].along;
        [b[0][f % 4], b[1][f % 4], b[2][f % 4]]
    };
    let signs = |f: usize| (blocks[f / 4].bits >> (f % 4)) & 0x111_111;
    // (A hull face wins a tie with a box face.)
    for (sep, i, sign) in box_faces {
        if sep > best_sep {
            (best, best_sep) = (Axis::BoxFace(i, sign), sep);
        }
    }

    // Edge pairs whose Gauss-map arcs cross, in the box's basis: with
    // `(i, j, l)` cyclic, the edge `dir = v1 - v0` has coordinates `g_m =
    // p_m(v1) - p_m(v0)`, the axis `dir x u_i` is `g_l u_j - g_j u_l` (of
    // squared length `g_j^2 + g_l^2`), a face normal `n` has coordinates
    // `n . u_m`, and `c - v0` has `w_m = u_m . c - p_m(v0)`.
    let (p0, p1, p2) = (p[0].as_slice(), p[1].as_slice(), p[2].as_slice());
    for (e, edge) in hull.edges().iter().enumerate() {
        let [f0, f1] = edge.faces.map(|f| f as usize);
        // The arcs cross the circle normal to `u_i` where the two faces'
        // `n . u_i` have opposite signs. A crossing within `ARC_END` of a
        // face normal is that face's axis (to about `ARC_END / |other|` in
        // angle; both small makes the edge parallel to `u_i`, left to the
        // sine tests below).
        let (s0, s1) = (signs(f0), signs(f1));
        let mask = (s0 ^ s1) & !((s0 | s1) >> 12) & 0x111;
        if mask == 0 {
            continue;
        }
        let [a0, a1] = edge.vertices.map(|v| v as usize);
        let g = [p0[a1] - p0[a0], p1[a1] - p1[a0], p2[a1] - p2[a0]];
        let w = [cl[0] - p0[a0], cl[1] - p1[a0], cl[2] - p2[a0]];
        let (n0, n1) = (along(f0), along(f1));
        let dir2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
        for i in (0..3).filter(|i| mask & (1 << (4 * i)) != 0) {
            let (j, l) = ((i + 1) % 3, (i + 2) % 3);
            let len2 = g[j] * g[j] + g[l] * g[l];
            if len2 < EDGE_MIN_SINE * EDGE_MIN_SINE * dir2 {
                if len2 < SLIVER_SINE * SLIVER_SINE * dir2 {
                    continue;
                }
                return generic();
            }
            // Out of the hull: along the arcs' crossing `n_0 |b| + n_1 |a|`.
            let towards = |n: &[Real; 3]| g[l] * n[j] - g[j] * n[l];
            let sign = if towards(&n0) * n1[i].abs() + towards(&n1) * n0[i].abs() < 0.0 { -1.0 } else { 1.0 };
            // The box edge along `u_i` whose outward normals hold `-d`:
            // `d . u_j` has the sign of `sign g_l`, `d . u_l` of `-sign g_j`.
            let side_j = if sign * g[l] > 0.0 { -h[j] } else { h[j] };
            let side_l = if sign * g[j] < 0.0 { -h[l] } else { h[l] };
            let len = len2.sqrt();
            let sep = sign * (g[l] * (w[j] + side_j) - g[j] * (w[l] + side_l)) / len;
            if sep > reach {
                return None;
            }
            if sep > best_sep {
                let d = (u[j] * g[l] - u[l] * g[j]) * (sign / len);
                let corner = c + u[j] * side_j + u[l] * side_l;
                (best, best_sep) = (Axis::Edges { edge: e, axis: i, d, corner }, sep);
            }
        }
    }

    if best_sep > 0.0 || best_sep.is_nan() {
        // Apart within the prediction: GJK's exact distance.
        return generic();
    }
    let depth = -best_sep;
    let vertices = hull.vertices();
    // Points in the hull's frame, and the normal out of the hull. A face
    // axis whose partner's deepest feature is a single corner or vertex
    // pairs it with its projection on the face (the origin's projection on
    // the face of the Minkowski difference, which holds it); when the
    // feature is an edge or a face (within `tie`), with a point of it whose
    // projection lies on the face: the mean of the feature clipped by the
    // face's side planes.
    let tie = TIE * (hull_size(hull) + 2.0 * h.max());
    let (normal, point_hull, point_box) = match best {
        Axis::HullFace(k) => {
            let n = faces[k].normal().into_inner();
            let nu = along(k);
            let mut corner = c;
            let mut free: SmallVec<[usize; 2]> = SmallVec::new();
            for i in 0..3 {
                if nu[i].abs() * h[i] <= tie {
                    free.push(i);
                } else {
                    corner += u[i] * side_of(nu[i], h[i]);
                }
            }
            let deepest = if free.is_empty() {
                corner
            } else {
                let mut feature: Loop = match free.as_slice() {
                    [i] => [corner - u[*i] * h[*i], corner + u[*i] * h[*i]].into_iter().collect(),
                    _ => {
                        let (a, b) = (u[free[0]] * h[free[0]], u[free[1]] * h[free[1]]);
                        [corner + a + b, corner - a + b, corner - a - b, corner + a - b].into_iter().collect()
                    }
                };
                let face = hull.face_vertices(k);
                for (m, &v) in face.iter().enumerate() {
                    let (p, q) = (vertices[v as usize], vertices[face[(m + 1) % face.len()] as usize]);
                    let side = (q - p).cross(&n);
                    clip(&mut feature, &side, side.dot(&p.coords));
                }
                mean(&feature).unwrap_or(corner)
            };
            (n, deepest + n * depth, deepest)
        }
        Axis::BoxFace(i, sign) => {
            // The hull's vertices deepest through the face (least `out . v`).
            let out = u[i] * sign;
            let least = vertices.iter().map(|v| out.dot(&v.coords)).fold(Real::INFINITY, Real::min);
            let tied = |v: &Point| out.dot(&v.coords) <= least + tie;
            let deepest = if vertices.iter().filter(|v| tied(v)).count() == 1 {
                *vertices.iter().find(|v| tied(v)).unwrap_or(&vertices[0])
            } else {
                // The tied vertices lie on the hull face best aligned with
                // `-out`; clipped by the box face's four side planes.
                let k = (0..faces.len())
                    .max_by(|&x, &y| (-sign * along(x)[i]).total_cmp(&(-sign * along(y)[i])))
                    .unwrap_or(0);
                let face = hull.face_vertices(k);
                let mut feature: Loop = face.iter().map(|&v| vertices[v as usize]).filter(|v| tied(v)).collect();
                if feature.len() != vertices.iter().filter(|v| tied(v)).count() {
                    return generic();
                }
                for j in [(i + 1) % 3, (i + 2) % 3] {
                    let cu = u[j].dot(&c.coords);
                    clip(&mut feature, &u[j], cu + h[j]);
                    clip(&mut feature, &-u[j], h[j] - cu);
                }
                match mean(&feature) {
                    Some(p) => p,
                    None => return generic(),
                }
            };
            (-out, deepest, deepest + out * depth)
        }
        Axis::Edges { edge, axis, d, corner } => {
            let e = &hull.edges()[edge];
            let (v0, v1) = (vertices[e.vertices[0] as usize], vertices[e.vertices[1] as usize]);
            // The box edge cut to the hull edge's projection on it: the
            // closest point to any point of the hull edge lies there, and
            // a box edge far longer than the hull (a floor slab) would
            // otherwise place its points only to its own length's rounding.
            let (s0, s1) = ((v0 - corner).dot(&u[axis]), (v1 - corner).dot(&u[axis]));
            let (lo, hi) = (s0.min(s1).clamp(-h[axis], h[axis]), s0.max(s1).clamp(-h[axis], h[axis]));
            let pair = closest_points_segment_segment(&v0, &v1, &(corner + u[axis] * lo), &(corner + u[axis] * hi));
            (d, pair.point_a, pair.point_b)
        }
    };
    Some(Contact {
        point_a: pose.transform_point(&point_hull),
        point_b: pose.transform_point(&point_box),
        normal: UnitVector::new_unchecked(rotation * normal),
        depth,
    })
}

/// The largest extent of the hull's box.
#[inline]
fn hull_size(hull: &ConvexHull) -> Real {
    let b = hull.aabb();
    (b.max() - b.min()).max()
}

/// Sutherland-Hodgman: the part of the convex loop with `side . x <= limit`.
/// A two-point loop is a segment (its two edges the same).
fn clip(poly: &mut Loop, side: &Vector, limit: Real) {
    let mut out = Loop::new();
    for m in 0..poly.len() {
        let (p, q) = (poly[m], poly[(m + 1) % poly.len()]);
        let (dp, dq) = (side.dot(&p.coords) - limit, side.dot(&q.coords) - limit);
        if dp <= 0.0 {
            out.push(p);
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    *poly = out;
}

/// The mean of the loop's points, `None` for an empty loop.
fn mean(poly: &Loop) -> Option<Point> {
    if poly.is_empty() {
        return None;
    }
    let sum = poly.iter().fold(Vector::zeros(), |s, p| s + p.coords);
    Some(Point::from(sum / poly.len() as Real))
}

/// The box's offset along an axis `u` for its corner deepest along `-n`:
/// `-h` when `n . u > 0`, else `h`.
#[inline]
fn side_of(nu: Real, h: Real) -> Real {
    if nu > 0.0 {
        -h
    } else {
        h
    }
}

/// [`contact_convex`] on the placed hull and the box, run with the box's
/// centre at the origin (see the `relative` module): GJK and EPA work in the
/// coordinates they are given, whose rounding far from the origin (`eps` of
/// 1e4 is 1e-3) would be the depth's.
fn contact_convex_about_box(hull: &ConvexHull, pose: &Isometry, obb: &Obb, prediction: Real) -> Option<Contact> {
    let o = obb.center().coords;
    let mut moved = *pose;
    moved.translation.vector -= o;
    let mut contact = contact_convex(&PlacedHull::new(hull, &moved), &obb.relative_to(&o), prediction);
    contact.move_by(&o);
    contact
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rotation;

    fn cube() -> ConvexHull {
        let points: Vec<Point> =
            (0..8).map(|i| Point::new((i & 1) as Real, ((i >> 1) & 1) as Real, (i >> 2) as Real)).collect();
        ConvexHull::try_new(&points).unwrap()
    }

    #[test]
    fn a_box_on_a_face_takes_that_face() {
        let lid = Obb::new(Point::new(0.5, 1.2, 0.5), Rotation::identity(), Vector::new(0.3, 0.3, 0.3));
        let c = contact_hull_obb(&cube(), &Isometry::identity(), &lid, 0.0).unwrap();
        assert!((c.depth - 0.1).abs() < 1e-6, "{c:?}");
        assert!((c.normal.y - 1.0).abs() < 1e-6);
        assert!((c.point_a.y - 1.0).abs() < 1e-6 && (c.point_b.y - 0.9).abs() < 1e-6);
    }
}

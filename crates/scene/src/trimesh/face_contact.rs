//! The contact of a convex shape against one triangle along the triangle's
//! face normal: the internal-edge removal's replacement for a penetrating
//! edge or vertex contact on an inactive feature.

use proxima_narrowphase::{
    cast_ray_capsule, cast_ray_obb, cast_ray_sphere, closest_point_triangle, ContactManifold, ManifoldPoint, Point,
    Ray, RayHit, Real, Triangle, UnitVector, Vector,
};

use super::manifold::{barycentric, face_normal_on_side, Convex};

/// The contact of `shape` A against triangle `t` along the triangle's face
/// normal, replacing the edge or vertex manifold `m` (touching) on an
/// inactive feature: A's deepest point across the triangle's plane over the
/// triangle, `point_b` on the triangle and `point_a = point_b + depth n` on
/// A, for the face normal `n` (from A to the triangle, on A's side of the
/// plane: see [`face_normal_on_side`]); `m`'s
/// deepest id. A shape penetrating a flat mesh across an inactive edge is
/// pushed out of the surface, not sideways, by its true depth below it.
///
/// A's support `s = support(n)` is its deepest point across the plane, at
/// depth `(s - a) . n` (clamped to `>= 0`); when `s` projects onto the
/// triangle, that is the contact. Otherwise the plane's depth at `s` belongs
/// to the neighbouring triangles, not to `t`, and the contact is the deepest
/// point of A within the triangle's prism (see [`deepest_over`]). When none
/// reaches the plane, `m` is kept: its points lie on `t` with their depth
/// along their own normal.
pub(super) fn face_contact(t: &Triangle, m: &ContactManifold, shape: &Convex<'_>) -> ContactManifold {
    let Some(n) = face_normal_on_side(t, shape, &m.normal) else { return *m };
    let s = shape.support(&n);
    let depth = (s - t.a()).dot(&n).max(0.0);
    let foot = s - n.into_inner() * depth;
    let id = m.deepest().id;
    let point = if barycentric(t, &foot).iter().all(|&w| w >= 0.0) {
        ManifoldPoint { point_a: s, point_b: foot, depth, id }
    } else {
        match deepest_over(t, &n, &s, &foot, &m.deepest().point_b, shape) {
            Some((x, d)) if d >= 0.0 => ManifoldPoint { point_a: x, point_b: x - n.into_inner() * d, depth: d, id },
            _ => return *m,
        }
    };
    ContactManifold::new(n, &[point]).unwrap_or(*m)
}

/// A's point of greatest depth `d = (x - a) . n` within the prism of
/// triangle `t` (the triangle swept along its unit normal `n`), and `d`;
/// `None` when no candidate lies in A. The prism cuts A into a convex piece
/// `P`, and the greatest `x . n` over `P` lies at a vertex of `P`: a vertex
/// of A inside the prism, an edge of A crossing a side of the prism, or a
/// vertical edge of the prism (through a vertex of `t`) leaving A. The
/// candidates:
/// - a box's or hull's edges clipped to the prism: their clipped ends (the
///   first two kinds, exact for these shapes);
/// - the reach of A along `n` over points `q` of `t` (the third kind at the
///   vertices of `t`; the point of `t` closest to `foot`, exact for a
///   sphere, whose depth falls with the distance from its centre's
///   projection `foot`; the contact's triangle point `contact`; and for a
///   capsule the projections of its core segment clipped to the prism, the
///   best of these for a capsule).
#[must_use]
fn deepest_over(
    t: &Triangle,
    n: &UnitVector,
    s: &Point,
    foot: &Point,
    contact: &Point,
    shape: &Convex<'_>,
) -> Option<(Point, Real)> {
    let prism = Prism::new(t, n);
    let depth = |x: &Point| (x - t.a()).dot(n);
    let mut best: Option<(Point, Real)> = None;
    let mut offer = |x: Point| {
        let d = depth(&x);
        if best.is_none_or(|(_, b)| d > b) {
            best = Some((x, d));
        }
    };
    let project = |x: &Point| x - n.into_inner() * depth(x);
    let mut over = |q: Point| shape_reach(shape, &q, n, s).into_iter().for_each(&mut offer);
    over(closest_point_triangle(foot, t));
    over(*contact);
    t.vertices().into_iter().for_each(&mut over);
    match shape {
        Convex::Sphere(_) => {}
        Convex::Capsule(c) => {
            if let Some((p, q)) = prism.clip(c.a(), c.b()) {
                over(project(&p));
                over(project(&q));
            }
        }
        Convex::Obb(o) => {
            let corner = |k: usize| {
                let sign = |b: usize| if k & (1 << b) == 0 { -1.0 } else { 1.0 };
                o.to_world(&o.half_extents().component_mul(&Vector::new(sign(0), sign(1), sign(2))))
            };
            // The 12 edges join corners that differ in one axis' sign.
            for k in 0..8 {
                for b in 0..3 {
                    if k & (1 << b) == 0 {
                        prism.clip(&corner(k), &corner(k | 1 << b)).into_iter().for_each(|(p, q)| {
                            offer(p);
                            offer(q);
                        });
                    }
                }
            }
        }
        Convex::Hull(h) => {
            let vertex = |i: u32| h.pose.transform_point(&h.hull.vertices()[i as usize]);
            for e in h.hull.edges() {
                prism.clip(&vertex(e.vertices[0]), &vertex(e.vertices[1])).into_iter().for_each(|(p, q)| {
                    offer(p);
                    offer(q);
                });
            }
        }
    }
    best
}

/// A's last point on the line `q + h n` (the greatest `h` in A), `None`
/// when the line misses A: a ray cast back along `-n` from `q + top n`,
/// `top` past A's support plane `s . n` by a margin, so the ray starts
/// outside A and its first hit is that last point.
fn shape_reach(shape: &Convex<'_>, q: &Point, n: &UnitVector, s: &Point) -> Option<Point> {
    let aabb = shape.aabb();
    let diagonal = (aabb.max() - aabb.min()).norm();
    let margin = 1e-2 * diagonal + Real::EPSILON;
    let top = (s - q).dot(n) + margin;
    let origin = q + n.into_inner() * top;
    let ray = Ray::try_new(origin, -n.into_inner(), top + diagonal + margin).ok()?;
    let hit: RayHit = match shape {
        Convex::Sphere(sphere) => cast_ray_sphere(&ray, sphere),
        Convex::Obb(o) => cast_ray_obb(&ray, o),
        Convex::Capsule(c) => cast_ray_capsule(&ray, c),
        Convex::Hull(h) => crate::hull::cast_ray_hull(&ray, h.hull, h.pose),
    }?;
    Some(q + n.into_inner() * (top - hit.toi))
}

/// The three side planes of a triangle's prism: `w_i . (x - v_i) >= 0`
/// inside, `w_i = n x (v_{i+1} - v_i)` turned towards the third vertex.
struct Prism {
    sides: [(Vector, Point); 3],
}

impl Prism {
    fn new(t: &Triangle, n: &UnitVector) -> Self {
        let v = t.vertices();
        let side = |i: usize| {
            let (a, b, c) = (v[i], v[(i + 1) % 3], v[(i + 2) % 3]);
            let w = n.cross(&(b - a));
            (if w.dot(&(c - a)) < 0.0 { -w } else { w }, a)
        };
        Self { sides: [side(0), side(1), side(2)] }
    }

    /// Segment `[p, q]` clipped to the prism (Liang and Barsky: the
    /// parameter `u` of `p + u (q - p)` kept in `[0, 1]` by each side's
    /// `f(u) = w . (p - v) + u w . (q - p) >= 0`), `None` when nothing is
    /// left.
    fn clip(&self, p: &Point, q: &Point) -> Option<(Point, Point)> {
        let (mut lo, mut hi): (Real, Real) = (0.0, 1.0);
        let d = q - p;
        for (w, v) in &self.sides {
            let (f0, slope) = (w.dot(&(p - v)), w.dot(&d));
            if slope == 0.0 {
                if f0 < 0.0 {
                    return None;
                }
            } else if slope > 0.0 {
                lo = lo.max(-f0 / slope);
            } else {
                hi = hi.min(-f0 / slope);
            }
        }
        (lo <= hi).then(|| (p + d * lo, p + d * hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hull::PosedHull;
    use proxima_narrowphase::{ConvexHull, Isometry};
    use proxima_test_support::gen::{self, Placement};

    /// The greatest reach of `shape` along `n` over a barycentric grid of
    /// `t` (steps of 1/60), `None` when no line of the grid meets it: a lower
    /// bound of the greatest depth within the prism.
    fn grid_deepest(t: &Triangle, n: &UnitVector, s: &Point, shape: &Convex<'_>) -> Option<Real> {
        let [a, b, c] = t.vertices();
        let steps = 60;
        let mut best: Option<Real> = None;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let (u, v) = (i as Real / steps as Real, j as Real / steps as Real);
                let q = a + (b - a) * u + (c - a) * v;
                if let Some(x) = shape_reach(shape, &q, n, s) {
                    let d = (x - a).dot(n);
                    best = Some(best.map_or(d, |b| b.max(d)));
                }
            }
        }
        best
    }

    /// Boxes, hulls, spheres and capsules near a triangle: the point found
    /// lies in the shape (within `1e-4`) and over the triangle (within
    /// `1e-5`), and for the box, the hull and the sphere it is no shallower
    /// than any point of the grid (less `1e-5`): the deepest within the prism. 30-70% of the shapes reach
    /// past the plane over the triangle (`d >= 0`).
    #[test]
    fn deepest_over_the_triangle_beats_a_grid() {
        let mut rng = proxima_test_support::rng(0x6465_6570);
        let place = Placement::new(1.2, 0.2, 0.8);
        let tri_place = Placement::new(0.0, 0.5, 1.5);
        let (mut cases, mut crossing) = (0, 0);
        for case in 0..1200 {
            let t = gen::triangle(&mut rng, &tri_place);
            let Some(n) = UnitVector::try_new(t.scaled_normal(), 1e-6) else { continue };
            let (obb, sphere, capsule) =
                (gen::obb(&mut rng, &place), gen::sphere(&mut rng, &place), gen::capsule(&mut rng, &place));
            let points: Vec<Point> = (0..10).map(|_| gen::point(&mut rng, &place)).collect();
            let hull = ConvexHull::new(&points);
            let pose = Isometry::identity();
            let shape = match case % 4 {
                0 => Convex::Obb(&obb),
                1 => Convex::Sphere(&sphere),
                2 => Convex::Capsule(&capsule),
                _ => Convex::Hull(PosedHull::new(&hull, &pose)),
            };
            let s = shape.support(&n);
            let foot = s - n.into_inner() * (s - t.a()).dot(&n);
            cases += 1;
            let Some((x, d)) = deepest_over(&t, &n, &s, &foot, t.a(), &shape) else { continue };
            let grid = grid_deepest(&t, &n, &s, &shape);
            crossing += usize::from(d >= 0.0);
            let inside = match &shape {
                Convex::Obb(o) => (o.to_local(&x).abs() - o.half_extents()).max(),
                Convex::Sphere(b) => (x - b.center()).norm() - b.radius(),
                Convex::Capsule(c) => (x - closest_point_segment(&x, c.a(), c.b())).norm() - c.radius(),
                Convex::Hull(_) => {
                    hull.faces().iter().map(|f| f.normal().dot(&x.coords) - f.offset()).fold(Real::MIN, Real::max)
                }
            };
            assert!(inside <= 1e-4, "case {case}: {x:?} outside by {inside}");
            let foot_x = x - n.into_inner() * d;
            let off = (closest_point_triangle(&foot_x, &t) - foot_x).norm();
            assert!(off <= 1e-5, "case {case}: {off} off the triangle");
            if !matches!(shape, Convex::Capsule(_)) {
                assert!(grid.is_none_or(|g| d >= g - 1e-5), "case {case}: {d} under the grid's {grid:?}");
            }
        }
        assert!(crossing * 10 >= cases * 3 && crossing * 10 <= cases * 7, "{crossing} of {cases}");
    }

    fn closest_point_segment(p: &Point, a: &Point, b: &Point) -> Point {
        let ab = b - a;
        let u = ((p - a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0);
        a + ab * u
    }
}

//! A convex hull collider placed in the world: its support map for the
//! generic convex queries (GJK, EPA), its world box, and the ray cast and
//! sphere sweep against it, exact on the hull's planes.

use proxima_narrowphase::{
    cast_ray_capsule, distance_convex, Aabb, Capsule, ConvexHull, Isometry, PlacedHull, Point, Ray, RayHit, Real,
    Sphere, SupportMap, SweepHit, SweepStatus, UnitVector, Vector,
};

/// A hull and the pose from its frame to world (a unit rotation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PosedHull<'a> {
    pub(crate) hull: &'a ConvexHull,
    pub(crate) pose: &'a Isometry,
    /// The placed hull's support map: the pose's rotation turned into a
    /// matrix once, so every support query turns a direction in and a point
    /// out by lane-wise products, cheaper than the quaternion's.
    pub(crate) placed: PlacedHull<'a>,
}

impl<'a> PosedHull<'a> {
    /// `hull` placed by `pose`.
    #[inline]
    pub(crate) fn new(hull: &'a ConvexHull, pose: &'a Isometry) -> Self {
        Self { hull, pose, placed: PlacedHull::new(hull, pose) }
    }
}

/// The support point of the placed hull: the hull's support point along the
/// direction brought into its frame, placed back.
impl SupportMap for PosedHull<'_> {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        self.placed.support(dir)
    }

    /// The placed centre of the hull's box (GJK's start).
    #[inline]
    fn core_center(&self) -> Point {
        self.placed.core_center()
    }
}

/// The tight world box of `hull` under `pose`: the extremes of its placed
/// vertices.
pub(crate) fn world_aabb(hull: &ConvexHull, pose: &Isometry) -> Aabb {
    let mut lo = Vector::repeat(Real::INFINITY);
    let mut hi = Vector::repeat(Real::NEG_INFINITY);
    for v in hull.vertices() {
        let p = pose.transform_point(v).coords;
        lo = lo.inf(&p);
        hi = hi.sup(&p);
    }
    Aabb::new(lo.into(), hi.into())
}

/// The first hit of `ray` on the solid hull placed by `pose` (Cyrus-Beck
/// clipping of the ray by the face planes, in the hull's frame): the ray
/// `o + t d` is inside every half-space `n . x <= c` for `t` between the
/// last entry (`n . d < 0`, at `t = (c - n . o) / (n . d)`) and the first
/// exit; a hit is an entry no later than the exit. An origin inside the hull
/// gives `toi = 0` and `normal = -d / |d|`, as for the other solids.
pub(crate) fn cast_ray_hull(ray: &Ray, hull: &ConvexHull, pose: &Isometry) -> Option<RayHit> {
    let o = pose.inverse_transform_point(ray.origin());
    let d = pose.rotation.inverse_transform_vector(ray.dir());
    let (mut enter, mut exit) = (0.0, ray.max_toi());
    let mut normal: Option<&UnitVector> = None;
    for face in hull.faces() {
        let n = face.normal();
        let gap = face.offset() - n.dot(&o.coords);
        let speed = n.dot(&d);
        if speed == 0.0 {
            if gap < 0.0 {
                return None;
            }
            continue;
        }
        let t = gap / speed;
        if speed < 0.0 {
            if t > enter {
                (enter, normal) = (t, Some(n));
            }
        } else if t < exit {
            exit = t;
        }
        if enter > exit {
            return None;
        }
    }
    let normal = match normal {
        Some(n) => UnitVector::new_unchecked(pose.rotation * n.into_inner()),
        None => ray.back_normal(),
    };
    Some(RayHit { toi: enter, normal })
}

/// The first contact of `sphere` moving by `motion` with the hull placed by
/// `pose`: a ray cast of the sphere's centre against the hull grown by the
/// radius (the Minkowski sum), whose surface is the faces pushed out by the
/// radius, a cylinder around each edge and a sphere at each vertex. The
/// first entry is the earliest of the ray's hits on the pushed faces within
/// their polygons and on the edges' capsules (cylinder and end spheres).
/// Apart at the start: [`SweepStatus::Hit`]; touching or overlapping:
/// [`SweepStatus::Penetrating`] at `toi = 0`, with the hull's point closest
/// to the centre (GJK).
pub(crate) fn cast_sphere_hull(
    sphere: &Sphere,
    motion: &Vector,
    hull: &ConvexHull,
    pose: &Isometry,
) -> Option<SweepHit> {
    let posed = PosedHull::new(hull, pose);
    let r = sphere.radius();
    // In the hull's frame: the centre's ray over the motion, toi in [0, 1].
    let c = pose.inverse_transform_point(sphere.center());
    let m = pose.rotation.inverse_transform_vector(motion);
    let start = distance_convex(&posed, sphere.center());
    if start.distance <= r {
        let penetrating = |point: Point, normal: UnitVector| SweepHit {
            toi: 0.0,
            point: pose.transform_point(&point),
            normal: UnitVector::new_unchecked(pose.rotation * normal.into_inner()),
            status: SweepStatus::Penetrating,
        };
        let local_closest = pose.inverse_transform_point(&start.point_a);
        if let Some(normal) = UnitVector::try_new(c - local_closest, 0.0) {
            return Some(penetrating(local_closest, normal));
        }
        // The centre on or inside the hull: the face plane nearest it.
        let gap = |f: &proxima_narrowphase::HullFace| f.normal().dot(&c.coords) - f.offset();
        let face = hull.faces().iter().max_by(|f, g| gap(f).total_cmp(&gap(g)))?;
        return Some(penetrating(c - face.normal().into_inner() * gap(face), *face.normal()));
    }
    let ray = Ray::try_new(c, m, 1.0).ok()?;
    let mut best: Option<(Real, Point, UnitVector)> = None;
    let mut keep = |toi: Real, point: Point, normal: UnitVector| {
        if best.is_none_or(|(t, ..)| toi < t) {
            best = Some((toi, point, normal));
        }
    };
    for (k, face) in hull.faces().iter().enumerate() {
        let n = face.normal();
        let speed = n.dot(&m);
        if speed >= 0.0 {
            continue;
        }
        let t = (face.offset() + r - n.dot(&c.coords)) / speed;
        if !(0.0..=1.0).contains(&t) {
            continue;
        }
        let touch = c + m * t - n.into_inner() * r;
        if inside_face(hull, k, &touch, n) {
            keep(t, touch, *n);
        }
    }
    for edge in hull.edges() {
        let [a, b] = edge.vertices.map(|v| hull.vertices()[v as usize]);
        let Ok(capsule) = Capsule::try_new(a, b, r) else { continue };
        if let Some(hit) = cast_ray_capsule(&ray, &capsule) {
            let centre = ray.point_at(hit.toi);
            keep(hit.toi, centre - hit.normal.into_inner() * r, hit.normal);
        }
    }
    let (toi, point, normal) = best?;
    // A grazing entry can round to 0 on a centre that started apart.
    let toi = toi.max(Real::MIN_POSITIVE);
    Some(SweepHit {
        toi,
        point: pose.transform_point(&point),
        normal: UnitVector::new_unchecked(pose.rotation * normal.into_inner()),
        status: SweepStatus::Hit,
    })
}

/// True when `p`, on face `k`'s plane, lies within its polygon: on the inner
/// side of each edge of the loop (counter-clockwise seen from outside, so
/// inside is `(v_{i+1} - v_i) x (p - v_i) . n >= 0`).
fn inside_face(hull: &ConvexHull, k: usize, p: &Point, n: &UnitVector) -> bool {
    let loop_ = hull.face_vertices(k);
    let v = |i: usize| hull.vertices()[loop_[i % loop_.len()] as usize];
    (0..loop_.len()).all(|i| (v(i + 1) - v(i)).cross(&(p - v(i))).dot(n) >= 0.0)
}

/// True when `p` lies in the hull placed by `pose`.
pub(crate) fn contains_point_hull(hull: &ConvexHull, pose: &Isometry, p: &Point) -> bool {
    hull.contains_point(&pose.inverse_transform_point(p))
}

/// The point of the placed hull closest to `p` (`p` itself inside).
pub(crate) fn closest_point_hull(hull: &ConvexHull, pose: &Isometry, p: &Point) -> Point {
    if contains_point_hull(hull, pose, p) {
        return *p;
    }
    distance_convex(&PosedHull::new(hull, pose), p).point_a
}

/// A convex world shape as a support map: the generic queries' view of a
/// collider when a hull is in the pair. Rounded shapes give their cores and
/// radii, so GJK runs on a point or a segment where they are curved.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ConvexRef<'a> {
    Sphere(&'a Sphere),
    Obb(proxima_narrowphase::Obb),
    Capsule(&'a Capsule),
    Hull(PosedHull<'a>),
}

impl SupportMap for ConvexRef<'_> {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        match self {
            Self::Sphere(s) => s.support(dir),
            Self::Obb(o) => o.support(dir),
            Self::Capsule(c) => c.support(dir),
            Self::Hull(h) => h.support(dir),
        }
    }

    #[inline]
    fn core_support(&self, dir: &Vector) -> Point {
        match self {
            Self::Sphere(s) => s.core_support(dir),
            Self::Obb(o) => o.core_support(dir),
            Self::Capsule(c) => c.core_support(dir),
            Self::Hull(h) => h.core_support(dir),
        }
    }

    #[inline]
    fn core_center(&self) -> Point {
        match self {
            Self::Sphere(s) => s.core_center(),
            Self::Obb(o) => o.core_center(),
            Self::Capsule(c) => c.core_center(),
            Self::Hull(h) => h.core_center(),
        }
    }

    #[inline]
    fn core_radius(&self) -> Real {
        match self {
            Self::Sphere(s) => s.core_radius(),
            Self::Obb(o) => o.core_radius(),
            Self::Capsule(c) => c.core_radius(),
            Self::Hull(h) => h.core_radius(),
        }
    }
}

/// A world shape as a [`ConvexRef`]; `None` for a mesh.
pub(crate) fn as_convex(shape: &crate::shape::WorldShape) -> Option<ConvexRef<'_>> {
    use crate::shape::WorldShape as S;
    Some(match shape {
        S::Sphere(s) => ConvexRef::Sphere(s),
        S::Aabb(a) => ConvexRef::Obb(proxima_narrowphase::Obb::from_aabb(a)),
        S::Obb(o) => ConvexRef::Obb(*o),
        S::Capsule(c) => ConvexRef::Capsule(c),
        S::ConvexHull(hull, pose) => ConvexRef::Hull(PosedHull::new(hull, pose)),
        S::TriMesh(..) | S::Compound(..) => return None,
    })
}

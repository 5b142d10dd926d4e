//! `contact_sphere_hull` and `contact_manifold_sphere_hull` on the placements
//! the random cases rarely reach: a centre exactly on a face, an edge or a
//! vertex, at the centroid, exactly touching, a zero radius, a thin slab,
//! far from the origin; and the manifold's feature ids. (The random cases
//! are in `sphere_hull_vs_parry.rs`.)
//!
//! The hull is a box `[-h, h]` (its corners), whose signed distance is known
//! in closed form (`point_box_signed_distance_f64`, f64): every contact is
//! checked by its depth against `r - sd` and by separation, moving the hull
//! by `depth + 1e-4 L` along the normal leaves the centre at least `r` away.
//! Tolerances: `8 eps (L + M)` for the depth and `1e-5` for normals along
//! axes (the rounding of a placed point, `M` the largest coordinate).
//!
//! `cargo test --release -p proxima-narrowphase --test sphere_hull_edge_cases`

mod common_np;

use common_np::point_box_signed_distance_f64;
use proxima_narrowphase::{
    contact_manifold_sphere_hull, contact_sphere_hull, Contact, ConvexHull, Isometry, Point, Real, Rotation, Sphere,
    Vector,
};

/// The hull of the corners of the box `[-h, h]`.
fn box_hull(h: Vector) -> ConvexHull {
    let corners: Vec<Point> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            Point::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
        })
        .collect();
    ConvexHull::new(&corners)
}

/// The poses tried: identity, a rotation, and the rotation moved to
/// `(1e5, -1e5, 1e5)` and `(1e3, 1e3, -1e3)`.
fn poses() -> [Isometry; 4] {
    let rot = Rotation::from_euler_angles(0.3, -0.7, 1.1);
    [
        Isometry::identity(),
        Isometry::from_parts(Vector::zeros().into(), rot),
        Isometry::from_parts(Vector::new(1e5, -1e5, 1e5).into(), rot),
        Isometry::from_parts(Vector::new(1e3, 1e3, -1e3).into(), rot),
    ]
}

/// Checks a contact against the box's signed distance; returns it. A miss
/// passes only for a centre at least `r - tol` away (a rounding outside).
fn checked(c: Option<Contact>, s: &Sphere, h: &Vector, pose: &Isometry) -> Option<Contact> {
    let l = 2.0 * h.amax();
    let m = pose.translation.vector.amax() + s.center().coords.amax() + l;
    let tol = 8.0 * Real::EPSILON * (l + m);
    let local = |p: &Point| {
        let r = pose.rotation.to_rotation_matrix().into_inner().cast::<f64>();
        r.transpose() * (p.coords.cast::<f64>() - pose.translation.vector.cast::<f64>())
    };
    let h64 = h.cast::<f64>();
    let sd = point_box_signed_distance_f64(&local(s.center()), &h64) as Real;
    let r = s.radius();
    let Some(c) = c else {
        assert!(sd >= r - tol, "no contact: {s:?}, sd {sd}");
        return None;
    };
    assert!((c.depth - (r - sd).max(0.0)).abs() <= tol, "depth {} vs {} for {s:?}", c.depth, r - sd);
    assert!((c.normal.norm() - 1.0).abs() < 1e-5);
    // Moving the hull by `depth + 1e-4 L` along the normal: the centre is
    // then at least `r` from it (moved the other way relative to the hull).
    let moved = s.center() - c.normal.into_inner() * (c.depth + 1e-4 * l);
    let after = point_box_signed_distance_f64(&local(&moved), &h64) as Real;
    assert!(after >= r - tol, "still {after} < {r} after moving by the depth: {c:?} {s:?}");
    Some(c)
}

/// The normal in the hull's frame.
fn local_normal(c: &Contact, pose: &Isometry) -> Vector {
    pose.rotation.inverse_transform_vector(&c.normal)
}

/// True when `n` is `-e` for one of the listed (outward) axes `e`.
fn is_minus_one_of(n: &Vector, axes: &[Vector]) -> bool {
    axes.iter().any(|e| (n + e).norm() <= 1e-5)
}

#[test]
fn centre_on_a_face_edge_or_vertex_takes_a_face_of_that_feature() {
    let h = Vector::new(1.0, 0.5, 0.25);
    let hull = box_hull(h);
    let (x, y, z) = (Vector::x(), Vector::y(), Vector::z());
    // (local centre, the outward normals of the faces through it)
    let spots = [
        (Point::new(0.25, 0.125, 0.25), vec![z]),
        (Point::new(1.0, 0.125, 0.25), vec![x, z]),
        (Point::new(1.0, -0.5, 0.25), vec![x, -y, z]),
    ];
    for pose in poses() {
        for (p, faces) in &spots {
            for r in [0.0, 0.125, 3.0] {
                let s = Sphere::new(pose.transform_point(p), r);
                let exact = pose.translation.vector == Vector::zeros() && pose.rotation == Rotation::identity();
                let Some(c) = checked(contact_sphere_hull(&s, &hull, &pose), &s, &h, &pose) else {
                    assert!(!exact && r == 0.0, "a centre on the surface misses: {p:?} r {r}");
                    continue;
                };
                let n = local_normal(&c, &pose);
                if exact {
                    // Exactly on the feature: one of its faces' normals.
                    assert!(is_minus_one_of(&n, faces), "normal {n:?} at {p:?}");
                } else {
                    // The placed centre is a rounding off the feature: a
                    // normal in the feature's cone (a mix of its faces').
                    assert!(faces.iter().all(|e| n.dot(e) <= 1e-5) && n.norm() > 0.99, "normal {n:?} at {p:?}");
                    // No component along an axis none of its faces is normal to.
                    for e in [x, y, z].iter().filter(|e| !faces.iter().any(|f| f.dot(e) != 0.0)) {
                        assert!(n.dot(e).abs() <= 1e-3, "normal {n:?} leaves the cone of {p:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn centre_at_the_centroid_takes_the_nearest_face() {
    let h = Vector::new(1.0, 0.5, 0.25);
    let hull = box_hull(h);
    for pose in poses() {
        let s = Sphere::new(pose.transform_point(&hull.centroid()), 0.1);
        let c = checked(contact_sphere_hull(&s, &hull, &pose), &s, &h, &pose).expect("inside");
        assert!(is_minus_one_of(&local_normal(&c, &pose), &[Vector::z(), -Vector::z()]));
        assert!((c.depth - 0.35).abs() <= 1e-5 * (1.0 + pose.translation.vector.amax()));
    }
}

#[test]
fn exactly_touching_gives_depth_zero_and_a_hair_beyond_none() {
    // Values exact in f32: a face at distance 0.5 and an edge at distance
    // |(0.375, 0.5)| = 0.625 of radii 0.5 and 0.625.
    let hull = box_hull(Vector::repeat(1.0));
    let id = Isometry::identity();
    for (centre, r) in [(Point::new(0.5, 0.5, 1.5), 0.5), (Point::new(1.375, 0.0, 1.5), 0.625)] {
        let c = contact_sphere_hull(&Sphere::new(centre, r), &hull, &id).expect("touching");
        assert_eq!(c.depth, 0.0);
        let apart = Sphere::new(centre, r * (1.0 - 4.0 * Real::EPSILON));
        assert!(contact_sphere_hull(&apart, &hull, &id).is_none());
        assert!(contact_manifold_sphere_hull(&apart, &hull, &id, 0.0).is_none());
        let m = contact_manifold_sphere_hull(&apart, &hull, &id, 1e-3).expect("within the prediction");
        assert!(m.points()[0].depth < 0.0 && m.points()[0].depth > -1e-5);
    }
    // A zero radius: a contact exactly on or in the hull.
    assert_eq!(contact_sphere_hull(&Sphere::new(Point::new(1.0, 1.0, 1.0), 0.0), &hull, &id).unwrap().depth, 0.0);
    assert!(contact_sphere_hull(&Sphere::new(Point::new(1.0, 1.0, 1.0 + 1e-6), 0.0), &hull, &id).is_none());
    let inside = contact_sphere_hull(&Sphere::new(Point::new(0.0, 0.0, 0.75), 0.0), &hull, &id).unwrap();
    assert!((inside.depth - 0.25).abs() < 1e-6 && (inside.normal.z + 1.0).abs() < 1e-6);
}

#[test]
fn thin_slab_inside_over_and_beside() {
    // 2 x 2 x 2e-3: a thousandth of its size thick (hulls flatter than
    // 1e-5 of their size are rejected as flat).
    let h = Vector::new(1.0, 1.0, 1e-3);
    let hull = box_hull(h);
    for pose in poses() {
        for (p, r) in [
            (Point::new(0.3, 0.2, 4e-4), 0.05),
            (Point::new(0.3, 0.2, -4e-4), 0.05),
            (Point::new(-0.3, 0.9, 0.03), 0.05),
            (Point::new(1.02, 0.5, 0.0), 0.05),
            (Point::new(1.02, 1.01, 0.002), 0.05),
        ] {
            let s = Sphere::new(pose.transform_point(&p), r);
            checked(contact_sphere_hull(&s, &hull, &pose), &s, &h, &pose).expect("overlapping");
        }
    }
}

#[test]
fn manifold_ids_name_the_feature_and_persist_over_it() {
    let hull = box_hull(Vector::repeat(1.0));
    let id = Isometry::identity();
    let feature = |p: Point| {
        let m = contact_manifold_sphere_hull(&Sphere::new(p, 0.5), &hull, &id, 0.1).unwrap();
        assert_eq!(m.len(), 1);
        m.points()[0].id
    };
    // Over the top face, inside under it, over an edge, over a vertex.
    let face = feature(Point::new(0.0, 0.0, 1.3));
    assert_eq!(feature(Point::new(0.7, -0.6, 1.45)), face);
    assert_eq!(feature(Point::new(0.2, 0.1, 0.8)), face);
    let edge = feature(Point::new(1.2, 0.0, 1.2));
    assert_eq!(feature(Point::new(1.3, 0.7, 1.1)), edge);
    let vertex = feature(Point::new(1.2, 1.2, 1.2));
    assert_eq!(feature(Point::new(1.1, 1.3, 1.2)), vertex);
    let mut all = [face, edge, vertex, feature(Point::new(0.0, 0.0, -1.3))];
    all.sort_unstable();
    assert!(all.windows(2).all(|w| w[0] != w[1]), "ids {all:?}");
}

#[test]
fn a_centre_far_out_is_a_miss_and_the_depth_scales_with_the_hull() {
    for size in [1e-3, 1.0, 1e3] {
        let h = Vector::repeat(size);
        let hull = box_hull(h);
        for pose in poses() {
            let over = Sphere::new(pose.transform_point(&Point::new(0.0, 0.0, 1.5 * size)), size);
            let tol = 8.0 * Real::EPSILON * pose.translation.vector.amax();
            let c = checked(contact_sphere_hull(&over, &hull, &pose), &over, &h, &pose);
            assert!(c.is_some() || tol >= 0.1 * size, "size {size} pose {pose:?}");
            let far = Sphere::new(pose.transform_point(&Point::new(0.0, 3.0 * size, 3.0 * size)), size);
            if tol < 0.1 * size {
                assert!(contact_sphere_hull(&far, &hull, &pose).is_none(), "size {size} pose {pose:?}");
            }
        }
    }
}

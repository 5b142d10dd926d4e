//! `HeightField::cast_ray_closest`, the grid walk, against brute force over
//! every triangle, against the field's own mesh and against parry3d 0.31's
//! heightfield ray cast, on seeded random rays of six kinds.

use nalgebra::DMatrix;
use parry3d::query::{Ray as PRay, RayCast};
use parry3d::shape::HeightField as PHeightField;
use parry3d::utils::Array2;
use proxima_narrowphase::{cast_ray_triangle, Point, Ray, Real, Vector};
use proxima_scene::HeightField;
use proxima_test_support::{convert, gen};
use rand::rngs::SmallRng;
use rand::Rng;

/// Rays per field and kind: 6 kinds, 3 fields, 60,000 rays a field.
const PER_KIND: usize = 10_000;

/// The smallest `toi` over every triangle tested alone with the kernel the
/// walk uses: the walk must give the same number, bit for bit, since it
/// runs the same kernel on the same triangles and only skips triangles
/// that the ray cannot reach before its best hit.
fn brute_force(field: &HeightField, ray: &Ray) -> Option<Real> {
    let mut best: Option<Real> = None;
    for i in 0..field.rows() - 1 {
        for j in 0..field.cols() - 1 {
            for tri in field.cell_triangles(i, j).into_iter().flatten() {
                if let Some(h) = cast_ray_triangle(ray, &tri) {
                    best = Some(best.map_or(h.toi, |b| b.min(h.toi)));
                }
            }
        }
    }
    best
}

fn field(seed: u64, rows: usize, cols: usize, scale: Vector, offset: Real, holes: Real) -> HeightField {
    let mut rng = proxima_test_support::rng(seed);
    // Hills: a smooth swell plus noise, so rays graze ridges and valleys.
    let heights = DMatrix::from_fn(rows, cols, |i, j| {
        let (u, v) = (i as Real * 0.4, j as Real * 0.3);
        offset + 2.0 * (u.sin() * v.cos()) + gen::uniform(&mut rng, -0.3, 0.3)
    });
    let mask = DMatrix::from_fn(rows - 1, cols - 1, |_, _| rng.random::<Real>() < holes);
    HeightField::try_with_holes(heights, scale, &mask).unwrap()
}

fn unit(rng: &mut SmallRng) -> Vector {
    gen::unit_vector(rng)
}

/// Ray `kind` (0 to 5) for `field`:
/// 0. anywhere near the field, any direction;
/// 1. vertical, up or down;
/// 2. along a grid line (x = x_j, z = z_i) or a cell's diagonal;
/// 3. grazing: nearly horizontal, through a vertex or an edge point;
/// 4. starting below the surface or on a vertex;
/// 5. from 1e4 away, aimed at a point of the field.
fn ray(field: &HeightField, kind: usize, rng: &mut SmallRng) -> Ray {
    let b = field.local_aabb().loosened(1.0);
    let (lo, hi) = (*b.min(), *b.max());
    let in_box = |rng: &mut SmallRng| {
        Point::new(gen::uniform(rng, lo.x, hi.x), gen::uniform(rng, lo.y, hi.y), gen::uniform(rng, lo.z, hi.z))
    };
    let (rows, cols) = (field.rows(), field.cols());
    let vertex = |rng: &mut SmallRng| field.vertex(rng.random_range(0..rows), rng.random_range(0..cols));
    match kind {
        0 => Ray::new(in_box(rng), unit(rng), 100.0),
        1 => {
            let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
            Ray::new(in_box(rng), Vector::y() * sign * gen::uniform(rng, 0.5, 2.0), 100.0)
        }
        2 => {
            let mut o = in_box(rng);
            let mut d = unit(rng);
            match rng.random_range(0..3) {
                0 => {
                    o.x = field.vertex(0, rng.random_range(0..cols)).x;
                    d.x = 0.0;
                }
                1 => {
                    o.z = field.vertex(rng.random_range(0..rows), 0).z;
                    d.z = 0.0;
                }
                _ => {
                    // Along the diagonal of cell (i, j), from p10 towards p01.
                    let (i, j) = (rng.random_range(0..rows - 1), rng.random_range(0..cols - 1));
                    let (p10, p01) = (field.vertex(i + 1, j), field.vertex(i, j + 1));
                    let along = p01 - p10;
                    d = Vector::new(along.x, gen::uniform(rng, -1.0, 1.0), along.z);
                    let back = gen::uniform(rng, 0.0, 3.0);
                    o = Point::new(p10.x - back * along.x, gen::uniform(rng, lo.y, hi.y), p10.z - back * along.z);
                }
            }
            Ray::new(o, d, 100.0)
        }
        3 => {
            let a = vertex(rng);
            // A vertex, or a point on an edge from it to a neighbour sample.
            let target = if rng.random::<bool>() {
                a
            } else {
                let c = vertex(rng);
                let t = rng.random::<Real>();
                Point::from(a.coords * (1.0 - t) + c.coords * t)
            };
            let mut d = unit(rng);
            d.y = gen::uniform(rng, -0.02, 0.02);
            let back = gen::uniform(rng, 0.0, 30.0);
            Ray::new(target - d * back, d, 100.0)
        }
        4 => {
            if rng.random::<bool>() {
                Ray::new(vertex(rng), unit(rng), 100.0)
            } else {
                let mut o = in_box(rng);
                o.y = lo.y - gen::uniform(rng, 0.0, 1.0);
                let mut d = unit(rng);
                d.y = d.y.abs() + 0.1;
                Ray::new(o, d, 100.0)
            }
        }
        _ => {
            let d = unit(rng);
            Ray::new(in_box(rng) - d * 1e4, d, 2e4)
        }
    }
}

/// Per kind: the rays, hits, and whether each hit the oracles agree on.
#[test]
fn walk_equals_brute_force_and_the_mesh() {
    let fields = [
        ("hills", field(1, 33, 41, Vector::new(16.0, 1.0, 20.0), 0.0, 0.0)),
        ("hills at height 1e4", field(2, 41, 33, Vector::new(20.0, 1.0, 16.0), 1e4, 0.0)),
        ("holes", field(3, 36, 36, Vector::new(30.0, 1.5, 30.0), 0.0, 0.1)),
    ];
    let mut total = 0;
    for (name, field) in &fields {
        let mut rng = proxima_test_support::rng(0x4EF);
        for kind in 0..6 {
            let mut hits = 0;
            for n in 0..PER_KIND {
                let ray = ray(field, kind, &mut rng);
                let ours = field.cast_ray_closest(&ray);
                let exact = brute_force(field, &ray);
                assert_eq!(ours.map(|h| h.hit.toi), exact, "{name}, kind {kind}, ray {n}: {ray:?}");
                let mesh = field.mesh().cast_ray_closest(&ray);
                assert_eq!(mesh.map(|h| h.hit.toi), exact, "{name}, kind {kind}, ray {n}: mesh");
                if let Some(h) = ours {
                    // The reported triangle is hit at that toi, normal and all.
                    let tri = field.cell_triangles(h.row, h.col)[h.half].unwrap();
                    assert_eq!(cast_ray_triangle(&ray, &tri), Some(h.hit));
                    hits += 1;
                }
                total += 1;
            }
            // Both branches exercised (the vertical rays start inside the
            // field's loosened box, so most hit).
            assert!(hits > PER_KIND / 20 && hits < PER_KIND, "{name}, kind {kind}: {hits} hits of {PER_KIND}");
            eprintln!("{name}, kind {kind}: {hits} hits of {PER_KIND}");
        }
    }
    assert_eq!(total, 180_000);
}

#[test]
fn degenerate_rays() {
    let f = field(4, 9, 9, Vector::new(8.0, 1.0, 8.0), 0.0, 0.0);
    // Through every grid vertex, straight down and slanted: as brute force;
    // through an interior vertex (a closed fan of six triangles, watertight)
    // a hit at the vertex or before it. A boundary vertex approached from
    // outside the field may be missed by rounding, as by brute force.
    let mut interior_hits = 0;
    for i in 0..9 {
        for j in 0..9 {
            let v = f.vertex(i, j);
            for d in [-Vector::y(), Vector::new(0.3, -1.0, -0.2), Vector::new(-1.0, -1.0, 1.0)] {
                let ray = Ray::new(v - d * 2.0, d, 10.0);
                let hit = f.cast_ray_closest(&ray);
                assert_eq!(hit.map(|h| h.hit.toi), brute_force(&f, &ray), "vertex ({i}, {j}), {d:?}");
                // At 2 up to the rounding of the origin `v - 2 d` (a few ulps).
                let interior = (1..8).contains(&i) && (1..8).contains(&j);
                if interior {
                    assert!(hit.is_some_and(|h| h.hit.toi <= 2.0 + 1e-6), "vertex ({i}, {j}), {d:?}: {hit:?}");
                    interior_hits += 1;
                }
            }
        }
    }
    assert_eq!(interior_hits, 49 * 3);
    // A ray outside the xz extent, and one pointing away: misses.
    assert!(f.cast_ray_closest(&Ray::new(Point::new(4.5, 5.0, 0.0), -Vector::y(), 100.0)).is_none());
    assert!(f.cast_ray_closest(&Ray::new(Point::new(0.0, 5.0, 0.0), Vector::y(), 100.0)).is_none());
    // `max_toi` short of the surface: a miss; reaching it: a hit.
    let down = Ray::new(Point::new(0.1, 10.0, 0.2), -Vector::y(), 1.0);
    assert!(f.cast_ray_closest(&down).is_none());
    assert!(f.cast_ray_closest(&down.with_max_toi(20.0)).is_some());
    // An origin on the surface: toi 0.
    let on = f.vertex(4, 4);
    assert_eq!(f.cast_ray_closest(&Ray::new(on, Vector::x(), 1.0)).map(|h| h.hit.toi), Some(0.0));
}

#[test]
fn walk_agrees_with_parrys_heightfield() {
    // parry's walk steps cell to cell by its own arithmetic and tests its
    // triangles with its own kernel: the same triangles (see
    // `heightfield.rs`), other roundings. Where both hit, their toi agree to
    // 1e-4 of the ray's reach (f32 ray-plane solutions on coordinates up to
    // 30, a grazing ray magnifying the rounding by up to ~50); where they
    // disagree otherwise (a hit against a miss, or farther), ours must be
    // brute force's (every triangle of the field tested), and the case is
    // counted as parry's (misses at cell borders), at most 1% of the rays.
    let (rows, cols, scale) = (65, 65, Vector::new(30.0, 1.0, 30.0));
    let mut rng = proxima_test_support::rng(5);
    let heights = DMatrix::from_fn(rows, cols, |i, j| {
        ((i as Real * 0.2).sin() + (j as Real * 0.15).cos()) * 2.0 + gen::uniform(&mut rng, -0.2, 0.2)
    });
    let ours = HeightField::try_new(heights.clone(), scale).unwrap();
    let theirs = PHeightField::new(Array2::new(rows, cols, heights.as_slice().to_vec()), convert::vec(&scale));
    let (mut both, mut differ, mut rays) = (0, 0, 0);
    for kind in [0, 1, 4, 5] {
        for _ in 0..PER_KIND {
            let ray = ray(&ours, kind, &mut rng);
            let pray = PRay::new(convert::pt(ray.origin()), convert::vec(ray.dir()));
            let a = ours.cast_ray_closest(&ray).map(|h| h.hit.toi);
            let b = theirs.cast_local_ray(&pray, ray.max_toi(), true);
            rays += 1;
            match (a, b) {
                (Some(a), Some(b)) if (a - b).abs() <= 1e-4 * (1.0 + a.abs()) * ray.dir().norm().max(1.0) => both += 1,
                (None, None) => {}
                _ => {
                    assert_eq!(a, brute_force(&ours, &ray), "parry {b:?}, {ray:?}");
                    differ += 1;
                }
            }
        }
    }
    eprintln!("parry: {both} hits agree, {differ} of {rays} rays differ (ours brute force's)");
    assert!(both > rays / 3, "{both} common hits");
    assert!(differ * 100 <= rays, "{differ} of {rays} rays differ from parry");
}

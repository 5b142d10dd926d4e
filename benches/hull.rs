//! Convex hull benchmarks: proxima's `ConvexHull` next to parry3d 0.31's
//! `ConvexPolyhedron`, on the same seeded clouds.
//!
//! - `hull/build_<cloud>_<n>`: building the hull of `n` points (32, 256, 4096)
//!   on a sphere or uniform in a ball (`ConvexHull::try_new` against
//!   `ConvexPolyhedron::from_convex_hull`, both giving polygon faces and
//!   adjacency); one iteration is one build.
//! - `hull/support_sphere_<n>`: support points of the hull of `n` points on a
//!   sphere (all of them vertices), along 1024 seeded directions per
//!   iteration (`ConvexHull::support_point` against parry's
//!   `SupportMap::local_support_point`); criterion reports the time per call.
//!
//! Ids are `<area>/<workload>/<implementation>` with implementation `proxima`
//! or `parry3d`.
//!
//! `cargo bench --bench hull`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::shape::{ConvexPolyhedron, SupportMap};
use proxima::narrowphase::{ConvexHull, Point, Vector};
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{uniform, unit_vector};
use std::hint::black_box;

/// Directions per support batch.
const DIRECTIONS: usize = 1024;

/// `n` seeded points on the unit sphere.
fn on_sphere(n: usize, seed: u64) -> Vec<Point> {
    let mut rng = proxima_test_support::rng(seed);
    (0..n).map(|_| Point::from(unit_vector(&mut rng))).collect()
}

/// `n` seeded points uniform in the unit ball.
fn in_ball(n: usize, seed: u64) -> Vec<Point> {
    let mut rng = proxima_test_support::rng(seed);
    (0..n).map(|_| Point::from(unit_vector(&mut rng) * uniform(&mut rng, 0.0, 1.0).cbrt())).collect()
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("hull");
    for (cloud, make) in [("sphere", on_sphere as fn(usize, u64) -> Vec<Point>), ("ball", in_ball)] {
        for n in [32, 256, 4096] {
            let points = make(n, 7 + n as u64);
            let theirs: Vec<_> = points.iter().map(cv::pt).collect();
            group.bench_function(format!("build_{cloud}_{n}/proxima"), |b| {
                b.iter(|| ConvexHull::try_new(black_box(&points)).unwrap().faces().len())
            });
            group.bench_function(format!("build_{cloud}_{n}/parry3d"), |b| {
                b.iter(|| ConvexPolyhedron::from_convex_hull(black_box(&theirs)).unwrap().faces().len())
            });
        }
    }
    group.finish();
}

fn support(c: &mut Criterion) {
    let mut group = c.benchmark_group("hull");
    group.throughput(Throughput::Elements(DIRECTIONS as u64));
    let mut rng = proxima_test_support::rng(3);
    let dirs: Vec<Vector> = (0..DIRECTIONS).map(|_| unit_vector(&mut rng)).collect();
    let theirs_dirs: Vec<_> = dirs.iter().map(cv::vec).collect();
    for n in [16, 32, 64, 256, 4096] {
        let points = on_sphere(n, 11 + n as u64);
        let hull = ConvexHull::try_new(&points).unwrap();
        let theirs = ConvexPolyhedron::from_convex_hull(&points.iter().map(cv::pt).collect::<Vec<_>>()).unwrap();
        group.bench_function(format!("support_sphere_{n}/proxima"), |b| {
            b.iter(|| dirs.iter().map(|d| hull.support_point(black_box(d)).x).sum::<f32>())
        });
        group.bench_function(format!("support_sphere_{n}/parry3d"), |b| {
            b.iter(|| theirs_dirs.iter().map(|&d| theirs.local_support_point(black_box(d)).x).sum::<f32>())
        });
    }
    group.finish();
}

criterion_group!(benches, build, support);
criterion_main!(benches);

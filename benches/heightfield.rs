//! Heightfield ray casts against parry3d 0.31's `HeightField`, one thread,
//! the same field and rays for both (`cargo bench --bench heightfield`):
//! - `heightfield_ray/aimed`: rays from points up to 64 above the field,
//!   aimed at random points of its extent (picking, shadow rays);
//! - `heightfield_ray/shallow`: rays 2 to 12 degrees below horizontal from
//!   a few units above the surface (line of sight across terrain: long
//!   walks over many cells).
//!
//! The field: 256 x 256 samples (255 x 255 cells, 130,050 triangles) over
//! 256 x 256 units, hills of amplitude ~8 plus noise. proxima's
//! `HeightField::cast_ray_closest` (the grid walk) against parry's
//! `cast_local_ray`; the checksum is the number of hits.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::query::{Ray as PRay, RayCast};
use parry3d::shape::HeightField as PHeightField;
use parry3d::utils::Array2;
use proxima::nalgebra::DMatrix;
use proxima::narrowphase::{Point, Ray, Real, Vector};
use proxima::scene::HeightField;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

const SAMPLES: usize = 256;
const RAYS: usize = 4_096;

fn heights() -> DMatrix<Real> {
    let mut rng = proxima_test_support::rng(0x7E44);
    DMatrix::from_fn(SAMPLES, SAMPLES, |i, j| {
        let (u, v) = (i as Real * 0.05, j as Real * 0.04);
        8.0 * u.sin() * v.cos() + 3.0 * (0.3 * u + 0.7 * v).sin() + uniform(&mut rng, -0.3, 0.3)
    })
}

/// A point of the field's extent at a random place, at its height.
fn on_field(field: &HeightField, rng: &mut impl Rng) -> Point {
    let (i, j) = (rng.random_range(0..SAMPLES), rng.random_range(0..SAMPLES));
    field.vertex(i, j) + Vector::new(uniform(rng, -0.5, 0.5), 0.0, uniform(rng, -0.5, 0.5))
}

fn aimed(field: &HeightField, rng: &mut impl Rng) -> Vec<Ray> {
    (0..RAYS)
        .map(|_| {
            let origin = Point::new(uniform(rng, -128.0, 128.0), uniform(rng, 12.0, 64.0), uniform(rng, -128.0, 128.0));
            let target = on_field(field, rng);
            Ray::new(origin, (target - origin).normalize(), 1e3)
        })
        .collect()
}

fn shallow(field: &HeightField, rng: &mut impl Rng) -> Vec<Ray> {
    (0..RAYS)
        .map(|_| {
            let origin = on_field(field, rng) + Vector::y() * uniform(rng, 1.0, 4.0);
            let (yaw, pitch) = (uniform(rng, 0.0, std::f32::consts::TAU), uniform(rng, 2.0, 12.0).to_radians());
            let dir = Vector::new(yaw.cos() * pitch.cos(), -pitch.sin(), yaw.sin() * pitch.cos());
            Ray::new(origin, dir, 1e3)
        })
        .collect()
}

fn rays(c: &mut Criterion) {
    let scale = Vector::new(256.0, 1.0, 256.0);
    let h = heights();
    let field = HeightField::try_new(h.clone(), scale).expect("a valid field");
    let parry = PHeightField::new(Array2::new(SAMPLES, SAMPLES, h.as_slice().to_vec()), cv::vec(&scale));
    let mut rng = proxima_test_support::rng(0x7E45);
    for (name, rays) in [("aimed", aimed(&field, &mut rng)), ("shallow", shallow(&field, &mut rng))] {
        let prays: Vec<PRay> = rays.iter().map(|r| PRay::new(cv::pt(r.origin()), cv::vec(r.dir()))).collect();
        let mut g = c.benchmark_group(format!("heightfield_ray/{name}"));
        g.throughput(Throughput::Elements(RAYS as u64));
        g.bench_function("proxima", |bench| {
            bench.iter(|| black_box(&rays).iter().filter(|r| field.cast_ray_closest(r).is_some()).count())
        });
        g.bench_function("parry3d", |bench| {
            bench.iter(|| black_box(&prays).iter().filter(|r| parry.cast_local_ray(r, 1e3, true).is_some()).count())
        });
        g.finish();
    }
}

criterion_group!(benches, rays);
criterion_main!(benches);

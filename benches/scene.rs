//! Scene-level benchmarks, each side by side with parry3d 0.31 on the same inputs:
//! closest-hit rays on the box scenes, camera and shadow rays on the shipped
//! meshes and a generated one (both mesh builds, bare and through `Scene`),
//! the mesh build (one thread and all), the parallel batch, and the
//! contact pipeline on a pile.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use parry3d::query::{Ray as PRay, RayCast};
use proxima::narrowphase::{Isometry, Point, Ray, Real, Rotation, Vector};
use proxima::scene::*;
use proxima_test_support::{convert, gen, scene as scenes};

const RAYS: usize = 20_000;

/// The box-scene ray workload: origins uniform in the scene cube, uniform
/// directions, max distance the cube's diagonal.
fn box_scene_rays(n: usize, seed: u64) -> Vec<Ray> {
    scenes::rays(n, RAYS, seed)
}

/// A scene of one static box collider per box.
fn static_box_scene(boxes: &[proxima::narrowphase::Aabb]) -> Scene {
    let mut scene = Scene::new();
    for b in boxes {
        let desc = ColliderDesc::new(
            ColliderShape::Cuboid { half_extents: b.half_extents() },
            Isometry::translation(b.center().x, b.center().y, b.center().z),
        );
        scene.insert(desc.fixed()).unwrap();
    }
    scene
}

fn box_rays(c: &mut Criterion) {
    for (n, label) in [(10_000, "10k"), (100_000, "100k")] {
        let boxes = scenes::boxes(n, false, 7);
        let rays = box_scene_rays(n, 8);
        let scene = static_box_scene(&boxes);
        // Warm: the first query may build lazily.
        black_box(scene.cast_ray_closest(&rays[0], &QueryFilter::default()));
        let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let prays: Vec<_> = rays.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect();

        let mut g = c.benchmark_group(format!("scene/rays_closest_{label}"));
        g.throughput(Throughput::Elements(RAYS as u64));
        g.sample_size(10);
        g.bench_function("proxima", |b| {
            b.iter(|| {
                let mut sum = 0.0;
                for r in &rays {
                    if let Some(h) = scene.cast_ray_closest(r, &QueryFilter::default()) {
                        sum += h.toi;
                    }
                }
                black_box(sum)
            })
        });
        g.bench_function("parry3d", |b| {
            b.iter(|| {
                let mut sum = 0.0;
                for (r, ray) in prays.iter().zip(&rays) {
                    let hit = bvh
                        .cast_ray(r, ray.max_toi(), |leaf, best| leaves[leaf as usize].cast_local_ray(r, best, true));
                    if let Some((_, t)) = hit {
                        sum += t;
                    }
                }
                black_box(sum)
            })
        });
        g.finish();
        if n == 100_000 {
            let mut g = c.benchmark_group("scene/cast_rays_batch_100k");
            g.throughput(Throughput::Elements(RAYS as u64));
            g.sample_size(10);
            let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            g.bench_function("proxima_1_thread", |b| {
                b.iter(|| one.install(|| black_box(scene.cast_rays(&rays, &QueryFilter::default()))))
            });
            g.bench_function("proxima_all_threads", |b| {
                b.iter(|| black_box(scene.cast_rays(&rays, &QueryFilter::default())))
            });
            g.finish();
        }
    }
}

fn camera_rays(mesh: &TriMesh, res: usize) -> Vec<Ray> {
    proxima_test_support::mesh::camera_rays(mesh.local_aabb(), res, 0.45)
}

fn bumpy_sphere(lat: usize, lon: usize) -> TriMesh {
    let (vertices, indices) = proxima_test_support::mesh::bumpy_sphere(lat, lon);
    TriMesh::new(vertices, indices).unwrap()
}

/// The meshes of the ray and build benches: the two shipped scans and a
/// generated one.
fn bench_meshes() -> Vec<(&'static str, TriMesh)> {
    let obj =
        |name: &str| TriMesh::from_obj(format!("{}/assets/meshes/{name}.obj", env!("CARGO_MANIFEST_DIR"))).unwrap();
    vec![("spot", obj("spot")), ("nefertiti-lowres", obj("nefertiti-lowres")), ("bumpy-sphere", bumpy_sphere(200, 250))]
}

/// Camera rays (closest hit) and shadow rays (any hit) on each mesh: the
/// bare `TriMesh` built both ways, a one-collider `Scene` holding the
/// `FastRays` mesh (single rays, and the camera's batch in packets), and
/// parry3d's `TriMesh`.
fn mesh_rays(c: &mut Criterion) {
    let all = QueryFilter::default();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for (name, mesh) in bench_meshes() {
        let theirs =
            parry3d::shape::TriMesh::new(mesh.vertices().iter().map(convert::pt).collect(), mesh.indices().to_vec())
                .unwrap();
        let pose = parry3d::math::Pose::identity();
        let sah = Arc::new(
            TriMesh::new_with(mesh.vertices().to_vec(), mesh.indices().to_vec(), MeshBuild::FastRays).unwrap(),
        );
        let mut scene = Scene::new();
        scene
            .insert(ColliderDesc::new(ColliderShape::TriMesh(Arc::clone(&sah)), Isometry::identity()).fixed())
            .unwrap();
        let rays = camera_rays(&mesh, 128);
        let prays: Vec<_> = rays.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect();
        let hits = rays.iter().filter(|r| mesh.cast_ray_closest(r).is_some()).count();
        eprintln!(
            "{name}: {} triangles, camera fill {:.0}%",
            mesh.triangles().len(),
            100.0 * hits as f64 / rays.len() as f64
        );

        let mut g = c.benchmark_group(format!("scene/mesh_camera_{name}"));
        g.throughput(Throughput::Elements(rays.len() as u64));
        g.sample_size(10);
        g.bench_function("proxima", |b| {
            b.iter(|| rays.iter().filter_map(|r| mesh.cast_ray_closest(r)).map(|h| h.hit.toi).sum::<f32>())
        });
        g.bench_function("proxima_fast_rays", |b| {
            b.iter(|| rays.iter().filter_map(|r| sah.cast_ray_closest(r)).map(|h| h.hit.toi).sum::<f32>())
        });
        g.bench_function("scene_fast_rays", |b| {
            b.iter(|| rays.iter().filter_map(|r| scene.cast_ray_closest(r, &all)).map(|h| h.toi).sum::<f32>())
        });
        g.bench_function("proxima_fast_rays_packets_1_thread", |b| {
            let mut out = Vec::new();
            b.iter(|| {
                one.install(|| sah.cast_rays_into(&rays, &mut out));
                out.iter().flatten().map(|h| h.hit.toi).sum::<f32>()
            })
        });
        g.bench_function("scene_fast_rays_batch_1_thread", |b| {
            b.iter(|| one.install(|| scene.cast_rays(&rays, &all)).iter().flatten().map(|h| h.toi).sum::<f32>())
        });
        g.bench_function("scene_fast_rays_batch_all_threads", |b| {
            b.iter(|| scene.cast_rays(&rays, &all).iter().flatten().map(|h| h.toi).sum::<f32>())
        });
        g.bench_function("parry3d", |b| {
            b.iter(|| prays.iter().filter_map(|r| theirs.cast_ray(&pose, r, Real::MAX, true)).sum::<f32>())
        });
        g.finish();

        // Shadow rays from the visible surface towards a light: any-hit.
        let light = Vector::new(-0.5, 1.0, 0.4).normalize();
        let shadow: Vec<Ray> = rays
            .iter()
            .filter_map(|r| mesh.cast_ray_closest(r).map(|h| (r, h.hit)))
            .map(|(r, h)| {
                Ray::new(proxima::narrowphase::offset_ray_origin(&r.point_at(h.toi), &h.normal), light, Real::INFINITY)
            })
            .collect();
        let pshadow: Vec<_> =
            shadow.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect();
        let mut g = c.benchmark_group(format!("scene/mesh_shadow_{name}"));
        g.throughput(Throughput::Elements(shadow.len() as u64));
        g.sample_size(10);
        g.bench_function("proxima", |b| b.iter(|| shadow.iter().filter(|r| mesh.cast_ray_any(r).is_some()).count()));
        g.bench_function("proxima_fast_rays", |b| {
            b.iter(|| shadow.iter().filter(|r| sah.cast_ray_any(r).is_some()).count())
        });
        g.bench_function("scene_fast_rays", |b| {
            b.iter(|| shadow.iter().filter(|r| scene.cast_ray_any(r, &all).is_some()).count())
        });
        g.bench_function("proxima_fast_rays_occluded_packets_1_thread", |b| {
            let mut out = Vec::new();
            b.iter(|| {
                one.install(|| sah.occluded_into(&shadow, &mut out));
                out.iter().filter(|&&o| o).count()
            })
        });
        g.bench_function("scene_fast_rays_occluded_1_thread", |b| {
            b.iter(|| one.install(|| scene.occluded(&shadow, &all)).iter().filter(|&&o| o).count())
        });
        g.bench_function("parry3d", |b| {
            b.iter(|| pshadow.iter().filter(|r| theirs.intersects_ray(&pose, r, Real::MAX)).count())
        });
        g.finish();
    }
}

/// The contact pipeline on a settled-looking pile: 8,000 spheres and rotated
/// boxes on a grid with 10% overlap jitter, plus a ground box.
fn pipeline_pile(c: &mut Criterion) {
    let mut scene = Scene::new();
    let ground = ColliderShape::Cuboid { half_extents: Vector::new(40.0, 0.5, 40.0) };
    scene.insert(ColliderDesc::new(ground, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();
    let mut rng = proxima_test_support::rng(31);
    let mut bodies = Vec::new();
    for i in 0..8_000 {
        let (x, z, y) = (i % 20, (i / 20) % 20, i / 400);
        let p = Vector::new(x as Real * 0.95 - 9.5, 0.45 + y as Real * 0.95, z as Real * 0.95 - 9.5);
        let shape = if i % 2 == 0 {
            ColliderShape::Sphere { radius: 0.5 }
        } else {
            ColliderShape::Cuboid { half_extents: Vector::repeat(0.4) }
        };
        let pose = Isometry::from_parts(p.into(), gen::rotation(&mut rng));
        bodies.push((scene.insert(ColliderDesc::new(shape, pose)).unwrap(), pose));
    }
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    let s = *pipeline.stats();
    eprintln!(
        "pile of 8000: {} candidate pairs, {} contacts; broadphase {:.3} ms, narrowphase {:.3} ms",
        s.candidate_pairs,
        s.contacts,
        s.broadphase.as_secs_f64() * 1e3,
        s.narrowphase.as_secs_f64() * 1e3
    );
    let mut g = c.benchmark_group("scene/pipeline_pile_8000");
    g.sample_size(10);
    let mut frame = 0usize;
    g.bench_function("proxima", |b| {
        b.iter(|| {
            // Each frame every body jiggles by up to 1 cm, as a settling pile does.
            frame += 1;
            for (k, (h, pose)) in bodies.iter().enumerate() {
                let d = 0.01 * (((k + frame) % 7) as Real / 7.0 - 0.5);
                let moved = Isometry::from_parts((pose.translation.vector + Vector::repeat(d)).into(), pose.rotation);
                scene.set_pose(*h, moved).unwrap();
            }
            black_box(pipeline.update(&mut scene).len())
        })
    });
    g.finish();
    let s = *pipeline.stats();
    eprintln!(
        "pile of 8000, last frame: broadphase {:.3} ms, narrowphase {:.3} ms, {} contacts",
        s.broadphase.as_secs_f64() * 1e3,
        s.narrowphase.as_secs_f64() * 1e3,
        s.contacts
    );
    let _ = Rotation::identity();
}

/// Rays through a one-structure `Scene` against the bare structure: one
/// static mesh collider (identity pose) against its `TriMesh`, and a static
/// box scene against a `StaticBvh` over the same boxes. The difference is
/// what the scene layer costs (filter, pose, dispatch).
fn one_collider(c: &mut Criterion) {
    let quick = |g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, n: usize| {
        g.throughput(Throughput::Elements(n as u64));
        g.sample_size(10);
        g.warm_up_time(std::time::Duration::from_secs(1));
        g.measurement_time(std::time::Duration::from_secs(2));
    };
    let all = QueryFilter::default();
    let path = format!("{}/assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"));
    let mesh = Arc::new(TriMesh::from_obj(&path).unwrap());
    let theirs =
        parry3d::shape::TriMesh::new(mesh.vertices().iter().map(convert::pt).collect(), mesh.indices().to_vec())
            .unwrap();
    let pose = parry3d::math::Pose::identity();
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(Arc::clone(&mesh)), Isometry::identity()).fixed()).unwrap();
    black_box(scene.cast_ray_closest(&Ray::new(Point::origin(), Vector::x(), 1.0), &all));
    let camera = camera_rays(&mesh, 128);
    let light = Vector::new(-0.5, 1.0, 0.4).normalize();
    let shadow: Vec<Ray> = camera
        .iter()
        .filter_map(|r| mesh.cast_ray_closest(r).map(|h| (r, h.hit)))
        .map(|(r, h)| {
            Ray::new(proxima::narrowphase::offset_ray_origin(&r.point_at(h.toi), &h.normal), light, Real::INFINITY)
        })
        .collect();
    for (kind, rays, any) in [("closest", &camera, false), ("any", &shadow, true)] {
        let prays: Vec<_> = rays.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect();
        let mut g = c.benchmark_group(format!("scene/one_mesh_{kind}_spot"));
        quick(&mut g, rays.len());
        g.bench_function("trimesh", |b| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| if any { mesh.cast_ray_any(r) } else { mesh.cast_ray_closest(r) }.is_some())
                    .count()
            })
        });
        g.bench_function("scene", |b| {
            b.iter(|| {
                let cast = |r| if any { scene.cast_ray_any(r, &all) } else { scene.cast_ray_closest(r, &all) };
                rays.iter().filter(|r| cast(r).is_some()).count()
            })
        });
        g.bench_function("parry3d", |b| {
            b.iter(|| {
                let cast = |r| {
                    if any {
                        theirs.intersects_ray(&pose, r, Real::MAX)
                    } else {
                        theirs.cast_ray(&pose, r, Real::MAX, true).is_some()
                    }
                };
                prays.iter().filter(|r| cast(r)).count()
            })
        });
        g.finish();
    }

    let n = 10_000;
    let boxes = scenes::boxes(n, false, 7);
    let rays = box_scene_rays(n, 8);
    let scene = static_box_scene(&boxes);
    black_box(scene.cast_ray_closest(&rays[0], &all));
    let bvh = proxima::broadphase::StaticBvh::build(&boxes);
    let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
    let pbvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
    let prays: Vec<_> = rays.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect();
    for (kind, any) in [("closest", false), ("any", true)] {
        let mut g = c.benchmark_group(format!("scene/one_static_{kind}_10k"));
        quick(&mut g, rays.len());
        g.bench_function("static_bvh", |b| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| {
                        if any {
                            let mut hit = false;
                            proxima::broadphase::BroadPhase::visit_ray(&bvh, r, |_, _| {
                                hit = true;
                                proxima::broadphase::RayControl::Stop
                            });
                            hit
                        } else {
                            bvh.cast_ray_closest(r).is_some()
                        }
                    })
                    .count()
            })
        });
        g.bench_function("scene", |b| {
            b.iter(|| {
                let cast = |r| if any { scene.cast_ray_any(r, &all) } else { scene.cast_ray_closest(r, &all) };
                rays.iter().filter(|r| cast(r).is_some()).count()
            })
        });
        if !any {
            g.bench_function("parry3d", |b| {
                b.iter(|| {
                    let cast = |(r, ray): (&PRay, &Ray)| {
                        pbvh.cast_ray(r, ray.max_toi(), |leaf, best| {
                            leaves[leaf as usize].cast_local_ray(r, best, true)
                        })
                        .is_some()
                    };
                    prays.iter().zip(&rays).filter(|&p| cast(p)).count()
                })
            });
        }
        g.finish();
    }
    // The batches on one thread against the loop of single rays.
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut g = c.benchmark_group("scene/batch_one_thread_10k");
    quick(&mut g, rays.len());
    // The loops collect the same output as the batches (a vector of hits).
    g.bench_function("loop_closest", |b| {
        b.iter(|| black_box(rays.iter().map(|r| scene.cast_ray_closest(r, &all)).collect::<Vec<_>>()))
    });
    g.bench_function("cast_rays", |b| b.iter(|| one.install(|| black_box(scene.cast_rays(&rays, &all)))));
    g.bench_function("loop_any", |b| {
        b.iter(|| black_box(rays.iter().map(|r| scene.cast_ray_any(r, &all)).collect::<Vec<_>>()))
    });
    g.bench_function("cast_rays_any", |b| b.iter(|| one.install(|| black_box(scene.cast_rays_any(&rays, &all)))));
    g.finish();
}

/// Building a mesh from its vertices and indices: proxima on a one-thread
/// rayon pool and on the global pool (every core), against parry3d's
/// `TriMesh::new` (default flags). The inputs are cloned inside every
/// iteration on both sides, as both constructors take them by value.
fn mesh_build(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for (name, mesh) in bench_meshes() {
        let (vertices, indices) = (mesh.vertices().to_vec(), mesh.indices().to_vec());
        let pvertices: Vec<_> = vertices.iter().map(convert::pt).collect();
        // Bytes per triangle: proxima's `memory_bytes`, parry's
        // `total_memory_size` (its value and the capacities of its vertices,
        // indices and BVH arrays), both on a freshly built mesh.
        let theirs = parry3d::shape::TriMesh::new(pvertices.clone(), indices.clone()).unwrap();
        let per = |bytes: usize| bytes as f64 / indices.len() as f64;
        let sah = TriMesh::new_with(vertices.clone(), indices.clone(), MeshBuild::FastRays).unwrap();
        eprintln!(
            "{name}: {} triangles, memory per triangle: proxima {:.1} B (FastRays {:.1} B), parry3d {:.1} B",
            indices.len(),
            per(TriMesh::new(vertices.clone(), indices.clone()).unwrap().memory_bytes()),
            per(sah.memory_bytes()),
            per(theirs.total_memory_size())
        );
        let mut g = c.benchmark_group(format!("scene/mesh_build_{name}"));
        g.throughput(Throughput::Elements(indices.len() as u64));
        g.sample_size(10);
        g.bench_function("proxima", |b| {
            b.iter(|| one.install(|| TriMesh::new(vertices.clone(), indices.clone()).unwrap()))
        });
        g.bench_function("proxima_all_threads", |b| {
            b.iter(|| TriMesh::new(vertices.clone(), indices.clone()).unwrap())
        });
        g.bench_function("proxima_fast_rays", |b| {
            b.iter(|| {
                one.install(|| TriMesh::new_with(vertices.clone(), indices.clone(), MeshBuild::FastRays).unwrap())
            })
        });
        g.bench_function("proxima_fast_rays_all_threads", |b| {
            b.iter(|| TriMesh::new_with(vertices.clone(), indices.clone(), MeshBuild::FastRays).unwrap())
        });
        g.bench_function("parry3d", |b| {
            b.iter(|| parry3d::shape::TriMesh::new(pvertices.clone(), indices.clone()).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, box_rays, mesh_rays, mesh_build, pipeline_pile, one_collider);
criterion_main!(benches);

//! A tiny ray-cast renderer shared by the examples: a pinhole camera, Lambert
//! shading with one light and shadow rays, and PNG output.
#![allow(dead_code)]

use proxima::narrowphase::{Point, Ray, Real, Vector};
use proxima::scene::{QueryFilter, Scene, SceneRayHit};

/// A pinhole camera.
pub struct Camera {
    pub eye: Point,
    pub forward: Vector,
    pub right: Vector,
    pub up: Vector,
    /// Half the view width at unit distance.
    pub half_width: Real,
}

impl Camera {
    /// A camera at `eye` looking at `target`, with a horizontal field of view in degrees.
    pub fn look_at(eye: Point, target: Point, fov_degrees: Real) -> Self {
        let forward = (target - eye).normalize();
        let right = forward.cross(&Vector::y()).normalize();
        let up = right.cross(&forward);
        Self { eye, forward, right, up, half_width: (fov_degrees.to_radians() * 0.5).tan() }
    }

    /// The primary rays of a `width x height` image, row by row from the top.
    pub fn rays(&self, width: usize, height: usize, max_toi: Real) -> Vec<Ray> {
        let aspect = height as Real / width as Real;
        let mut rays = Vec::with_capacity(width * height);
        for j in 0..height {
            for i in 0..width {
                let u = (2.0 * (i as Real + 0.5) / width as Real - 1.0) * self.half_width;
                let v = (1.0 - 2.0 * (j as Real + 0.5) / height as Real) * self.half_width * aspect;
                rays.push(Ray::new(self.eye, self.forward + self.right * u + self.up * v, max_toi));
            }
        }
        rays
    }
}

/// Lambert shading plus shadow rays (any-hit), one RGB triple per pixel (sky
/// for misses), shaded in parallel with rayon.
pub fn shade(
    scene: &Scene,
    rays: &[Ray],
    hits: &[Option<SceneRayHit>],
    light: &Vector,
    color: impl Fn(&SceneRayHit) -> [f32; 3] + Sync,
) -> Vec<u8> {
    use rayon::prelude::*;
    let pixels: Vec<[u8; 3]> = rays
        .par_iter()
        .zip(hits)
        .map(|(ray, hit)| {
            let px = match hit {
                None => {
                    let t = 0.5 * (ray.dir().normalize().y + 1.0);
                    [0.55 + 0.3 * t, 0.65 + 0.25 * t, 0.8 + 0.2 * t]
                }
                Some(h) => {
                    let n = h.normal.into_inner();
                    let p = ray.point_at(h.toi);
                    let lambert = n.dot(light).max(0.0);
                    let lit = lambert > 0.0 && {
                        let shadow = Ray::new(proxima::narrowphase::offset_ray_origin(&p, &n), *light, Real::INFINITY);
                        scene.cast_ray_any(&shadow, &QueryFilter::default()).is_none()
                    };
                    let c = color(h);
                    let k = 0.2 + if lit { 0.8 * lambert } else { 0.0 };
                    [c[0] * k, c[1] * k, c[2] * k]
                }
            };
            px.map(|x| (x.clamp(0.0, 1.0) * 255.0) as u8)
        })
        .collect();
    pixels.into_iter().flatten().collect()
}

/// Writes an 8-bit RGB PNG.
pub fn write_png(path: &std::path::Path, width: usize, height: usize, rgb: &[u8]) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width as u32, height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer.write_image_data(rgb).map_err(std::io::Error::other)?;
    Ok(())
}

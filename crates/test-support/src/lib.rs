//! Seeded generators and nalgebra <-> parry3d conversions for proxima's tests and benches.

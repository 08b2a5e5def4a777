//! The figure detector on every table frame of the photoreal fixtures
//! (`fixtures/photoreal/`, copied from the shared DEV set), through the real
//! marker detection and the camera files in `fixtures/detect/`, scored
//! against the truth files. Prints the measured figures.

use crate::photoreal_support;

use spotter::vision::eval::{Summary, quantile};

fn measure() -> Summary {
    photoreal_support::measure("as taken", true, |frame| frame)
}

/// The issue's targets (recall and precision >= 0.99, edge colour >= 0.99,
/// foot or mounted all right, position median <= 0.03 in and p95 <= 0.08
/// in, facing median <= 4 and p95 <= 10 degrees, a facing for >= 95%), and
/// where the detector measured better than a target (facing p95 8.2
/// degrees), that as a floor against regressions. A facing is now withheld
/// where the front mark is not clear (issue 15: a wrong facing is worse
/// than none), which gives one on 0.91 of the figures at a p95 of 6.7
/// degrees: the floor for facings given follows. Since stop 43 a round
/// base's arc wider than the mark is withheld too
/// (`facing.clear_max_width_share`; on the tune seeds 22 of 37 such were
/// more than 8 degrees off): here 0.889 given at a p95 of 5.1 degrees
/// (4 withheld, errors 0.9, 5.2, 5.2 and 18 degrees).
#[test]
fn detector_meets_the_issue_targets() {
    let s = measure();
    assert!(s.recall() >= 0.99, "recall {}", s.recall());
    assert!(s.precision() >= 0.99, "precision {}", s.precision());
    assert!(s.edge_accuracy() >= 0.99, "edge {}", s.edge_accuracy());
    assert!(s.base_accuracy() >= 1.0, "base {}", s.base_accuracy());
    let pos = |q| quantile(&s.position_errors_in, q);
    assert!(pos(0.5) <= 0.03, "position median {}", pos(0.5));
    assert!(pos(0.95) <= 0.08, "position p95 {}", pos(0.95));
    let facing = |q| quantile(&s.facing_errors_deg, q);
    assert!(facing(0.5) <= 4.0, "facing median {}", facing(0.5));
    assert!(facing(0.95) <= 9.0, "facing p95 {}", facing(0.95));
    assert!(
        s.facing_given() >= 0.88,
        "facing given {}",
        s.facing_given()
    );
}

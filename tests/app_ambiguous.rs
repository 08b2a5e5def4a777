//! Issue 15, identity: "an ambiguous assignment waits for more frames
//! instead of guessing, and says so in the app." Two figures the tracker
//! cannot tell apart are listed (and drawn) as a question naming both.

use crate::app_support;

use std::sync::Arc;
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use image::RgbImage;
use nalgebra::Point2;
use spotter::capture::folder::Playback;
use spotter::ui::pipeline::{Perceiver, Perception, SeenFigure};
use spotter::ui::{AppLogic, SourceChoice, SpotterApp};
use spotter::vision::{BaseKind, Detection, EdgeColour};

/// Sees two green figures that may have been swapped, and a third that is
/// sure.
struct InDoubt;

fn seen(id: u32, x: f64, with: Option<u32>) -> SeenFigure {
    SeenFigure {
        id,
        detection: Detection {
            center_in_table: Point2::new(x, 10.0),
            facing_deg: None,
            edge: EdgeColour::Green,
            base: BaseKind::Foot,
            confidence: 0.99,
            position_sigma_in: 0.03,
            appearance: None,
            side: Default::default(),
        },
        ambiguous_with: with,
    }
}

impl Perceiver for InDoubt {
    fn perceive(&mut self, _image: &RgbImage) -> Perception {
        Perception {
            figures: vec![
                seen(4, 10.0, Some(7)),
                seen(7, 11.2, Some(4)),
                seen(9, 20.0, None),
            ],
            ..Perception::default()
        }
    }
    fn relock(&mut self) {}
}

#[test]
fn figures_in_doubt_are_shown_as_a_question() {
    let source = SourceChoice::Folder {
        dir: app_support::demo_dir(),
        playback: Playback {
            fps: 10.0,
            hold: Duration::from_millis(200),
            looped: true,
        },
    };
    let logic = AppLogic::new(
        source,
        Arc::new(|| Box::new(InDoubt) as Box<dyn Perceiver>),
        Arc::new(|| {}),
    );
    let mut h = app_support::harness(SpotterApp::new(logic));
    app_support::step_until_label(&mut h, "#4 ? which one: #4 or #7");
    assert!(
        h.query_by_label_contains("#7 ? which one: #7 or #4")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("#9 ? which one").is_none(),
        "a sure figure asks nothing"
    );
}

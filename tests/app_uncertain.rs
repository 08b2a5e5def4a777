//! Uncertain figures in the app (issue 15): "the app draws uncertain
//! figures differently and never binds one automatically." A perceiver over
//! a real table lock sees every figure of the demo's Stand To! game where
//! the scenario puts it, one of them with a confidence under the certain
//! level; the first screen's automatic binding binds the others, leaves
//! that one to the player, and the Figures list marks it uncertain.

use crate::app_support;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use image::{Rgb, RgbImage};
use nalgebra::Matrix3;
use spotter::calibration::{MarkerObservation, TableLayout, TableLock, homography};
use spotter::capture::FrameSource;
use spotter::capture::failing::{Scene, ScriptedSource};
use spotter::game::photo;
use spotter::ui::logic::CustomSource;
use spotter::ui::pipeline::{LockSummary, Perceiver, Perception, SeenFigure};
use spotter::ui::session::GameSession;
use spotter::ui::{AppLogic, SourceChoice, SpotterApp};
use spotter::vision::confidence::DEFAULT_MIN_CERTAIN;
use spotter::vision::{Detection, EdgeColour};

/// Sees the four table markers and `figures` (track id = index).
struct Table {
    lock: TableLock,
    camera: Matrix3<f64>,
    figures: Vec<Detection>,
}

impl Perceiver for Table {
    fn perceive(&mut self, _image: &RgbImage) -> Perception {
        let observations: Vec<MarkerObservation> = self
            .lock
            .layout
            .markers
            .iter()
            .map(|m| MarkerObservation {
                id: m.id,
                corners_px: m
                    .corners_in_table()
                    .map(|c| homography::apply(&self.camera, c)),
            })
            .collect();
        self.lock.update(&observations);
        let figures = if self.lock.locked.is_some() {
            self.figures
                .iter()
                .enumerate()
                .map(|(i, d)| SeenFigure {
                    id: i as u32,
                    detection: d.clone(),
                    ambiguous_with: None,
                })
                .collect()
        } else {
            Vec::new()
        };
        Perception {
            lock: LockSummary {
                markers_found: observations.iter().map(|o| o.id).collect(),
                locked: self.lock.locked.clone(),
                ..LockSummary::default()
            },
            figures,
            ..Perception::default()
        }
    }

    fn relock(&mut self) {
        self.lock.relock();
    }
}

#[test]
fn an_uncertain_figure_is_shown_apart_and_never_bound_by_itself() {
    let games = tempfile::tempdir().expect("temp dir");
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo-stand-to.toml");
    let session = GameSession::new_game(&scenario, games.path(), 7).expect("the demo game");
    let state = session.state();
    let rules = session.game.rules().clone();
    let mut figures: Vec<Detection> = state
        .figures
        .iter()
        .filter(|f| f.alive() && !f.concealed)
        .map(|f| Detection {
            center_in_table: f.placement.center_in_table,
            facing_deg: Some(f.placement.facing_deg),
            edge: rules.base_edge(state, f).unwrap_or(EdgeColour::White),
            base: photo::base_kind(f),
            confidence: 0.97,
            position_sigma_in: 0.05,
            appearance: None,
            side: Default::default(),
        })
        .collect();
    assert!(figures.len() >= 2, "the demo has figures");
    let doubtful = 1usize;
    figures[doubtful].confidence = 0.6;
    assert!(figures[doubtful].confidence < DEFAULT_MIN_CERTAIN);
    let seen = figures.clone();
    let factory = Arc::new(move || {
        Box::new(Table {
            lock: TableLock::new(TableLayout::standard(48.0, 48.0), None),
            camera: Matrix3::new(20.0, 0.0, 10.0, 0.0, -20.0, 1000.0, 0.0, 0.0, 1.0),
            figures: seen.clone(),
        }) as Box<dyn Perceiver>
    });
    let scene = Arc::new(Mutex::new(Scene::Live(Arc::new(RgbImage::from_pixel(
        64,
        48,
        Rgb([100, 100, 100]),
    )))));
    let source = SourceChoice::Custom(CustomSource {
        name: "scripted camera".to_string(),
        open: Arc::new(move || {
            Ok(Box::new(ScriptedSource::new(
                "scripted camera",
                scene.clone(),
                Duration::from_millis(50),
            )) as Box<dyn FrameSource>)
        }),
    });
    let mut logic = AppLogic::new(source, factory, Arc::new(|| {}));
    logic.set_session(session);
    let mut h = app_support::harness(SpotterApp::new(logic));
    app_support::step_until(&mut h, "the seen figures bound", |app| {
        !app.logic.bindings.is_empty()
    });
    // Never bound automatically; the certain ones are.
    let logic = &h.state().logic;
    assert_eq!(
        logic.bound(doubtful as u32),
        None,
        "the uncertain figure was bound by itself"
    );
    for (i, _) in figures.iter().enumerate().filter(|(i, _)| *i != doubtful) {
        assert!(logic.bound(i as u32).is_some(), "#{i} is bound");
    }
    // Drawn apart: its row in the Figures list says so, the others' do not.
    h.step();
    let d = &figures[doubtful];
    let row = format!(
        "#{doubtful} {} {} ({:.1}, {:.1}) {:.0}\u{b0} uncertain {:.2}",
        d.edge.name(),
        d.base.name(),
        d.center_in_table.x,
        d.center_in_table.y,
        d.facing_deg.unwrap_or(0.0),
        d.confidence
    );
    assert!(h.query_by_label(&row).is_some(), "no row {row:?}");
    assert_eq!(
        h.query_all_by_label_contains("uncertain").count(),
        1,
        "only the uncertain figure is marked"
    );
}

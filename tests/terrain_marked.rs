//! Terrain the camera sees, marked by the player, read by the rules like
//! the scenario's: issue 13, "Volley Fire! and Stand To!: cover, rough
//! ground and woods read from the terrain on the table (the scenario's
//! terrain polygons, and the camera's where it sees them), not typed in as
//! flags; the player can still override."
//!
//! Stand To! (`seeds/000_*`): "Soft cover is any obstruction which obscures
//! the target but which won't stop a bullet (or a spear or arrow, if
//! applicable). Hard cover obscures the target and will stop the projectile
//! in question." and "Soft cover and leaders' bonuses are cumulative with
//! other save numbers, if more than one applies."
//!
//! Volley Fire! (`seeds/002_*`): "Cover is woods, scrub, gullies, ravines,
//! embankments, etc., and buildings." and "A. Targets in cover take 1/2 hits
//! from firing table results - round fractions up."

use std::io::Write;
use std::path::{Path, PathBuf};

use nalgebra::{Point2, Vector2};
use spotter::calibration::{self, Lens, TableLayout};
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, Game, GameState, Scenario};
use spotter::geometry::{TerrainKind, point_in_polygon};
use spotter::rules::dice::{TypedDice, seeded};
use spotter::rules::stand_to::action::{Action as St, AimUse, FireMode};
use spotter::rules::stand_to::event::Event as StandToEvent;
use spotter::rules::volley_fire::VolleyFireRules;
use spotter::vision::detect::Detector;
use spotter::vision::params::DetectorParams;

use crate::common::volley_fire::{action as vf_action, at, setup as vf_setup};
use crate::common::{at_phase, game_refusal_kind, id, registry, rules_arc};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The outline of the terrain piece the camera sees holding `near` on
/// `cam01/frame-04` of the photoreal fixtures (a tree and two buildings
/// stand there).
fn seen_piece(near: Point2<f64>) -> Vec<Point2<f64>> {
    let lens = Lens::load(&fixtures().join("detect/cam01.camera.toml")).expect("camera file");
    let layout = TableLayout::load(&fixtures().join("detect/cam01.table.toml")).expect("layout");
    let frame = image::open(fixtures().join("photoreal/cam01/frame-04.jpg"))
        .expect("fixture photo")
        .to_rgb8();
    let gray = image::imageops::grayscale(&frame);
    let mapping = calibration::detect_table(&gray, &layout, Some(&lens)).expect("markers");
    let detector = Detector::new(DetectorParams::defaults().unwrap(), layout);
    let found = detector.detect(&frame, &mapping).expect("detection runs");
    found
        .terrain
        .iter()
        .find(|t| t.contains(near))
        .unwrap_or_else(|| panic!("a piece holds {near:?}: {:?}", found.terrain))
        .outline_in
        .clone()
}

/// The tree of `cam01/frame-04` (truth centre 39.45, 20.23).
const TREE: Point2<f64> = Point2::new(39.45, 20.23);
/// Its building (truth centre 29.27, 24.23).
const HOUSE: Point2<f64> = Point2::new(29.27, 24.23);

fn mark(name: &str, kinds: &[TerrainKind], polygon_in: &[Point2<f64>]) -> Command {
    Command::MarkTerrain {
        name: name.into(),
        kinds: kinds.to_vec(),
        polygon_in: polygon_in.to_vec(),
    }
}

/// The dragoon's shot (carbine at 18 in against a charging Hadendowa),
/// the warrior standing at `target` and the dragoon 18 in to his west.
fn dragoon_at(target: Point2<f64>) -> GameState {
    let mut s = Scenario::load(Path::new("scenarios/dragoon.toml"), &registry())
        .unwrap()
        .state;
    let (hobbs, warrior) = (id(&s, "Trooper Hobbs"), id(&s, "Hadendowa warrior"));
    s.figures[warrior.index()].placement.center_in_table = target;
    s.figures[hobbs.index()].placement.center_in_table = target - Vector2::new(18.0, 0.0);
    at_phase(&mut s, "fire", "Trooper Hobbs");
    s
}

fn shot(s: &GameState) -> Command {
    Command::StandTo(St::Fire {
        shooter: id(s, "Trooper Hobbs"),
        target: id(s, "Hadendowa warrior"),
        mode: FireMode::Aimed,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: false,
    })
}

/// The save number of the shot's result.
fn save_of(events: &[Event]) -> u32 {
    events
        .iter()
        .find_map(|e| match e {
            Event::StandTo(StandToEvent::FireResolved { save, .. }) => Some(*save),
            _ => None,
        })
        .expect("a fire result")
}

#[test]
fn a_stand_to_target_in_a_seen_piece_marked_soft_cover_saves_one_more() {
    let tree = seen_piece(TREE);
    let s = dragoon_at(TREE);
    // Unmarked, the tree is no terrain: the charging native saves on 2
    // (his movement), as in the open.
    let mut open = Game::new(s.clone(), rules_arc(), None).unwrap();
    let faces = [4, 6, 4];
    let ev = open.execute(shot(&s), &mut TypedDice::new(faces)).unwrap();
    assert_eq!(save_of(&ev), 2);
    // Marked as woods (soft cover, rough ground): soft cover adds 1.
    let mut marked = Game::new(s.clone(), rules_arc(), None).unwrap();
    let woods = [TerrainKind::SoftCover, TerrainKind::Rough];
    marked
        .execute(mark("tree", &woods, &tree), &mut seeded(1))
        .unwrap();
    assert_eq!(marked.state().terrain.last().unwrap().name, "tree");
    let ev = marked
        .execute(shot(&s), &mut TypedDice::new(faces))
        .unwrap();
    assert_eq!(save_of(&ev), 3, "{ev:#?}");
    // The player's word wins: he says it is not terrain after all.
    let mut not_terrain = Game::new(s.clone(), rules_arc(), None).unwrap();
    not_terrain
        .execute(mark("tree", &[], &tree), &mut seeded(1))
        .unwrap();
    let ev = not_terrain
        .execute(shot(&s), &mut TypedDice::new(faces))
        .unwrap();
    assert_eq!(save_of(&ev), 2, "marked as not terrain");
}

/// The patrol with the Riflemen standing in the seen house (`polygon`),
/// exposed (they fired this turn), the 1st Section 18 in south of them and
/// the scenario's scrub gone: the fire phase of the Sudanese.
fn patrol_at_house(house: &[Point2<f64>]) -> GameState {
    let (mut s, _) = vf_setup();
    s.terrain.clear();
    at(&mut s, 1, "Sudanese");
    let (ri, riflemen) = s.unit_named("Riflemen").unwrap();
    let men = riflemen.figures.clone();
    // Packed on a 0.4 in grid round the house's truth centre, inside it.
    let mut spots = Vec::new();
    for j in -6..=6 {
        for i in -6..=6 {
            let p = HOUSE + Vector2::new(f64::from(i) * 0.4, f64::from(j) * 0.4);
            if point_in_polygon(house, p) {
                spots.push(p);
            }
        }
    }
    assert!(spots.len() >= men.len(), "{} spots", spots.len());
    spots.sort_by(|a, b| (a - HOUSE).norm().total_cmp(&(b - HOUSE).norm()));
    for (id, p) in men.iter().zip(&spots) {
        s.figures[id.index()].placement.center_in_table = *p;
    }
    s.units[ri].rules.volley_fire_mut().exposed_turn = Some(s.turn);
    let (_, section) = s.unit_named("1st Section").unwrap();
    let mean = section
        .figures
        .iter()
        .map(|f| s.figures[f.index()].placement.center_in_table.coords)
        .sum::<Vector2<f64>>()
        / section.figures.len() as f64;
    let by = HOUSE - Vector2::new(0.0, 18.0) - Point2::from(mean);
    for f in section.figures.clone() {
        s.figures[f.index()].placement.center_in_table += by;
    }
    s
}

fn kills(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| matches!(e, Event::Wounded { mount: false, .. }))
        .count()
}

fn halved(ev: &[Event]) -> bool {
    ev.iter()
        .any(|e| matches!(e, Event::Note { text } if text.contains("half for cover")))
}

#[test]
fn a_volley_fire_target_in_a_seen_piece_marked_soft_cover_takes_half_hits() {
    let house = seen_piece(HOUSE);
    let s = patrol_at_house(&house);
    let (_, r) = vf_setup();
    let rules = VolleyFireRules::builtin().unwrap();
    let fire = vf_action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Riflemen"}),
    );
    // The section's two d20s, then ones for whatever else is rolled.
    let faces: Vec<u32> = [13, 13].into_iter().chain([1; 80]).collect();
    let riflemen = |s: &GameState| s.unit_named("Riflemen").unwrap().1.clone();
    assert!(!rules.in_cover(&s, &riflemen(&s)), "unmarked: in the open");
    let mut open = Game::new(s.clone(), r.clone(), None).unwrap();
    let ev_open = open
        .execute(fire.clone(), &mut TypedDice::new(faces.clone()))
        .unwrap();
    assert!(!halved(&ev_open));
    let mut marked = Game::new(s.clone(), r.clone(), None).unwrap();
    marked
        .execute(
            mark("house", &[TerrainKind::SoftCover], &house),
            &mut seeded(1),
        )
        .unwrap();
    assert!(rules.in_cover(marked.state(), &riflemen(marked.state())));
    let ev_cover = marked
        .execute(fire.clone(), &mut TypedDice::new(faces.clone()))
        .unwrap();
    assert!(halved(&ev_cover), "{ev_cover:#?}");
    assert!(
        kills(&ev_cover) < kills(&ev_open),
        "{} in cover, {} in the open",
        kills(&ev_cover),
        kills(&ev_open)
    );
    // The players' override (the unit's `cover` status) still wins.
    // (On the state before the section fired, with the mark.)
    let mut fresh = s.clone();
    fresh.terrain = marked.state().terrain.clone();
    let (ri, _) = fresh.unit_named("Riflemen").unwrap();
    fresh.units[ri].rules.volley_fire_mut().cover = Some(false);
    let mut g = Game::new(fresh, r, None).unwrap();
    let ev = g.execute(fire, &mut TypedDice::new(faces)).unwrap();
    assert!(!halved(&ev));
    assert_eq!(kills(&ev), kills(&ev_open));
}

#[test]
fn a_mark_survives_a_kill_and_resume() {
    let tree = seen_piece(TREE);
    let s = dragoon_at(TREE);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.jsonl");
    let mut g = Game::new(s.clone(), rules_arc(), Some(&path)).unwrap();
    g.execute(
        mark("tree", &[TerrainKind::SoftCover, TerrainKind::Rough], &tree),
        &mut seeded(1),
    )
    .unwrap();
    let before = g.state().clone();
    drop(g);
    // Killed in the middle of the next command: half its record on disk.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    write!(f, "{{\"kind\":\"command\",\"n\":2,\"command\":{{\"comm").unwrap();
    drop(f);
    let mut resumed = Game::resume(&path, &registry()).unwrap();
    assert_eq!(resumed.state(), &before);
    let area = resumed
        .state()
        .terrain
        .iter()
        .find(|a| a.name == "tree")
        .unwrap();
    assert_eq!(area.polygon_in, tree);
    assert!(area.is(TerrainKind::SoftCover) && area.is(TerrainKind::Rough));
    // The replay gives it too, and the shot after resuming has the cover.
    assert_eq!(resumed.replay().last(), Some(&before));
    let ev = resumed
        .execute(shot(&s), &mut TypedDice::new([4, 6, 4]))
        .unwrap();
    assert_eq!(save_of(&ev), 3);
    // Taken off again: logged, and gone after a resume.
    resumed
        .execute(
            Command::ClearTerrain {
                name: "tree".into(),
            },
            &mut seeded(1),
        )
        .unwrap();
    drop(resumed);
    let again = Game::resume(&path, &registry()).unwrap();
    assert!(again.state().terrain.iter().all(|a| a.name != "tree"));
}

#[test]
fn a_mark_with_a_bad_outline_is_refused_before_the_log() {
    let s = dragoon_at(TREE);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.jsonl");
    let mut g = Game::new(s, rules_arc(), Some(&path)).unwrap();
    let square = [
        Point2::new(1.0, 1.0),
        Point2::new(3.0, 1.0),
        Point2::new(3.0, 3.0),
        Point2::new(1.0, 3.0),
    ];
    let mut nan = square;
    nan[2].x = f64::NAN;
    let mut off = square;
    off[1].x = 60.0;
    let soft = [TerrainKind::SoftCover];
    // A number that is not one is refused by the check, and kept off the
    // log by the log's own guard when executed.
    let bad = mark("wood", &soft, &nan);
    assert_eq!(game_refusal_kind(g.check(&bad)), RefusalKind::Malformed);
    assert!(matches!(
        g.execute(bad, &mut seeded(1)),
        Err(spotter::game::GameError::Log(
            spotter::game::LogError::NotFinite { .. }
        ))
    ));
    for (c, kind) in [
        (mark("wood", &soft, &square[..2]), RefusalKind::Malformed),
        (mark("wood", &soft, &off), RefusalKind::OffTable),
        (mark("  ", &soft, &square), RefusalKind::Malformed),
    ] {
        assert_eq!(game_refusal_kind(g.check(&c)), kind, "{c:?}");
        assert_eq!(game_refusal_kind(g.execute(c, &mut seeded(1))), kind);
    }
    let log = std::fs::read_to_string(&path).unwrap();
    assert!(!log.contains("mark-terrain"), "nothing refused is logged");
    assert!(matches!(
        g.execute(
            Command::ClearTerrain {
                name: "wood".into()
            },
            &mut seeded(1)
        ),
        Err(spotter::game::GameError::Rule(
            spotter::rules::RuleError::Unknown { .. }
        ))
    ));
    g.execute(mark("wood", &soft, &square), &mut seeded(1))
        .unwrap();
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("terrain-marked")
    );
}

#[test]
fn a_script_marks_terrain_and_the_shot_reads_it() {
    let text = r#"
scenario = "../dragoon.toml"
seed = 3

[[step]]
command = "mark-terrain"
name = "thorn bush"
kinds = ["soft-cover", "rough"]
polygon_in = [[26.0, 18.0], [30.0, 18.0], [30.0, 22.0], [26.0, 22.0]]

[[step]]
command = "clear-terrain"
name = "thorn bush"

[[step]]
command = "mark-terrain"
name = "thorn bush"
kinds = ["soft-cover"]
polygon_in = [[26.0, 18.0], [30.0, 18.0], [30.0, 22.0], [26.0, 22.0]]
"#;
    let src = spotter::spec::SourceFile::from_text("scenarios/scripts/inline.toml", text);
    let script = spotter::game::script::Script::from_source(&src, &registry()).unwrap();
    assert_eq!(script.steps.len(), 3);
    let game = script.play(&registry(), None, |_, _, _| {}).unwrap();
    let bush = game
        .state()
        .terrain
        .iter()
        .find(|a| a.name == "thorn bush")
        .unwrap();
    assert_eq!(bush.kinds, vec![TerrainKind::SoftCover]);
    // The warrior stands in it (28, 20).
    let warrior = game.state().figure_named("Hadendowa warrior").unwrap();
    assert!(point_in_polygon(
        &bush.polygon_in,
        warrior.placement.center_in_table
    ));
}

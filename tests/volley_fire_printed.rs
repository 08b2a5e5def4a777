//! Volley Fire! as printed: each test quotes the sentence of the rule text
//! (../shared/seeds/002_...) it enforces, on the Sudan patrol scenario.

use crate::common::refusal_kind;
use crate::common::volley_fire::{action, apply, at, resolve, setup};
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, GameState};
use spotter::geometry::{TerrainKind, point_in_polygon};
use spotter::rules::stand_to::Wound;

/// Every figure of `unit` out of the fight except those named.
fn keep_only(s: &mut GameState, unit: &str, names: &[&str]) {
    let (_, u) = s.unit_named(unit).unwrap();
    for id in u.figures.clone() {
        let f = &mut s.figures[id.index()];
        if !names.contains(&f.name.as_str()) {
            f.wound = Some(Wound::Killed);
        }
    }
}

fn place(s: &mut GameState, figure: &str, x: f64, y: f64) {
    let id = s.figure_named(figure).unwrap().id;
    s.figures[id.index()].placement.center_in_table = nalgebra::Point2::new(x, y);
}

/// The unit the melee's notes name as the loser.
fn melee_loser(ev: &[Event]) -> Option<String> {
    ev.iter().find_map(|e| match e {
        Event::Note { text } => text.find(" loses the melee").map(|i| text[..i].to_owned()),
        _ => None,
    })
}

fn melee(attacker: &str, defender: &str, from_rear: bool) -> Command {
    action(
        "melee",
        serde_json::json!({"attacker": attacker, "defender": defender, "from_rear": from_rear}),
    )
}

/// Men down in the events.
fn down(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| {
            matches!(
                e,
                Event::Wounded {
                    wound: Wound::Killed,
                    ..
                }
            )
        })
        .count()
}

/// "Hit From Rear (Attacker started out of view) Die Roll - 2"
#[test]
fn a_unit_hit_from_the_rear_fights_at_minus_two() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    keep_only(&mut s, "Swordsmen", &["Swordsmen 2"]);
    keep_only(&mut s, "Scouts", &["Scouts 3"]);
    // Swordsman 3 + 1 = 4 against the scout's 5: the scout wins from the
    // front, and loses (5 - 2 = 3) when hit from the rear.
    let front = resolve(
        r.as_ref(),
        &s,
        &melee("Swordsmen", "Scouts", false),
        &[3, 5],
    );
    assert_eq!(melee_loser(&front).as_deref(), Some("Swordsmen"));
    let rear = resolve(r.as_ref(), &s, &melee("Swordsmen", "Scouts", true), &[3, 5]);
    assert_eq!(melee_loser(&rear).as_deref(), Some("Scouts"), "{rear:#?}");
}

/// "British Gunners, Foot Officers/Emirs, Foot Swordsmen Die Roll + 1, Win
/// Ties"
#[test]
fn the_gardner_crew_fights_as_british_gunners() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    keep_only(&mut s, "Gardner", &["Gardner 2"]);
    let g = s
        .figure_named("Gardner 2")
        .unwrap()
        .placement
        .center_in_table;
    place(&mut s, "Hadendowa 1", g.x, g.y + 1.5);
    // Spearman 4 + 1 = 5, gunner 4 + 1 = 5 and the gunner wins ties.
    let ev = resolve(
        r.as_ref(),
        &s,
        &melee("Hadendowa", "Gardner", false),
        &[4, 4],
    );
    assert_eq!(melee_loser(&ev).as_deref(), Some("Hadendowa"), "{ev:#?}");
}

/// "Scouts cannot double time. Scouts take no terrain penalty."
#[test]
fn scouts_take_no_terrain_penalty() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let mv = action(
        "move",
        serde_json::json!({"unit": "Scouts", "to_in": [60.0, 47.0], "rough": true}),
    );
    let ev = resolve(r.as_ref(), &s, &mv, &[4, 4, 4, 4]);
    let rolled: u32 = ev
        .iter()
        .find_map(|e| match e {
            Event::Rolled { dice, .. } => Some(dice.iter().map(|d| d.face).sum()),
            _ => None,
        })
        .unwrap();
    let moved = ev
        .iter()
        .find_map(|e| match e {
            Event::Measured(m) => Some(m.value),
            _ => None,
        })
        .unwrap();
    assert!(
        (moved - f64::from(rolled)).abs() < 1e-9,
        "{moved} of {rolled}"
    );
}

/// "Fire is simultaneous in a 45 degree cone from the facing direction of
/// the firer." and "B. Simultaneously fire all weaponry in range."
#[test]
fn fire_in_a_phase_is_simultaneous_and_once_per_unit() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    // The riflemen have fired out of their scrub this turn: exposed, they
    // may be fired at ("No firing into concealment unless a target is
    // visible"), from within 24 in ("Small arms firing range into and
    // inside woods and scrub, etc., is 24""): the section is 3 in nearer.
    let (ri, _) = s.unit_named("Riflemen").unwrap();
    s.units[ri].rules.volley_fire_mut().exposed_turn = Some(s.turn);
    let (_, sec) = s.unit_named("1st Section").unwrap();
    for id in sec.figures.clone() {
        s.figures[id.index()].placement.center_in_table.y += 3.0;
    }
    let section = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Riflemen"}),
    );
    let riflemen = action(
        "fire",
        serde_json::json!({"unit": "Riflemen", "target": "1st Section"}),
    );
    let first = resolve(r.as_ref(), &s, &section, &[13, 13]);
    // The Riflemen fire first and hit ten men: the section still fires
    // with every man who stood when the phase began.
    let hit = resolve(r.as_ref(), &s, &riflemen, &[10]);
    assert!(down(&hit) >= 8, "{hit:#?}");
    let s2 = apply(&s, &hit);
    let second = resolve(r.as_ref(), &s2, &section, &[13, 13]);
    assert_eq!(down(&second), down(&first), "{second:#?}");
    // A unit fires once in the phase.
    let s3 = apply(&s2, &second);
    assert_eq!(
        refusal_kind(r.check(&s3, &section)),
        RefusalKind::AlreadyActed
    );
    // And the next fire phase is the next turn's.
    let mut g = s3.clone();
    let turn = g.turn;
    loop {
        let ev = resolve(r.as_ref(), &g, &Command::EndPhase, &[6, 1]);
        g = apply(&g, &ev);
        if g.phase == 1 {
            break;
        }
    }
    assert_eq!(g.turn, turn + 1, "one fire phase a turn");
}

/// "Cover is woods, scrub, gullies, ravines, embankments, etc., and
/// buildings." A unit is in cover when it stands in a cover area of the
/// table (the shipped scenario marked the Riflemen in cover outside the
/// scrub).
#[test]
fn the_shipped_scenario_puts_in_cover_only_units_in_cover_terrain() {
    let (s, _) = setup();
    let rules = spotter::rules::volley_fire::VolleyFireRules::builtin().unwrap();
    for u in &s.units {
        let in_cover_terrain = u
            .figures
            .iter()
            .filter_map(|id| s.figure(*id))
            .filter(|f| f.active())
            .all(|f| {
                s.terrain.iter().any(|t| {
                    (t.is(TerrainKind::SoftCover) || t.is(TerrainKind::HardCover))
                        && point_in_polygon(&t.polygon_in, f.placement.center_in_table)
                })
            });
        assert_eq!(rules.in_cover(&s, u), in_cover_terrain, "{}", u.name);
    }
    let (_, riflemen) = s.unit_named("Riflemen").unwrap();
    assert!(
        rules.in_cover(&s, riflemen),
        "the riflemen lie in the scrub"
    );
}

/// "Sudanese Infantry In Single Rank Die Roll + 1": the one-rank line.
#[test]
fn a_sudanese_line_fights_as_a_single_rank() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    let (ui, _) = s.unit_named("1st Section").unwrap();
    s.units[ui].formation = "line".into();
    s.units[ui].frontage = 0;
    keep_only(&mut s, "1st Section", &["1st Section 1"]);
    let p = s
        .figure_named("1st Section 1")
        .unwrap()
        .placement
        .center_in_table;
    place(&mut s, "Hadendowa 1", p.x, p.y + 1.5);
    // 4 + 1 against 4 + 1: a tie neither wins, fought again: 1 + 1
    // against 6 + 1.
    let ev = resolve(
        r.as_ref(),
        &s,
        &melee("Hadendowa", "1st Section", false),
        &[4, 4, 1, 6],
    );
    assert_eq!(melee_loser(&ev).as_deref(), Some("Hadendowa"), "{ev:#?}");
}

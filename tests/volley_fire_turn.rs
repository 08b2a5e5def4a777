//! Volley Fire! as printed: the turn sequence, one action per unit per
//! phase, charges with the charged unit's responses, the melee loser's
//! fall-back, army morale's who-tests-first, cover and rough ground from
//! the table's terrain, pistols and the Gardner gun's jam. Each test quotes
//! the sentence it enforces.

use nalgebra::{Point2, Vector2};
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, GameState};
use spotter::rules::stand_to::Wound;
use spotter::rules::volley_fire::VolleyFireRules;
use spotter::rules::volley_fire::event::Event as VfEvent;
use spotter::rules::volley_fire::status::Troops;

use crate::common::refusal_kind;
use crate::common::volley_fire::{action, apply, at, resolve, setup, shift_unit};

fn keep_only(s: &mut GameState, unit: &str, names: &[&str]) {
    let (_, u) = s.unit_named(unit).unwrap();
    for id in u.figures.clone() {
        let f = &mut s.figures[id.index()];
        if !names.contains(&f.name.as_str()) {
            f.wound = Some(Wound::Killed);
        }
    }
}

fn at_of(s: &GameState, name: &str) -> Point2<f64> {
    s.figure_named(name).unwrap().placement.center_in_table
}

fn moved_in(ev: &[Event]) -> f64 {
    ev.iter()
        .find_map(|e| match e {
            Event::Measured(m) => Some(m.value),
            _ => None,
        })
        .unwrap()
}

fn notes(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// "A. Commanders roll D6's for first move. High die roll will move first.
/// B. Simultaneously fire all weaponry in range. C. Fight and resolve all
/// hand-to-hand combat. D. Test Army morale if applicable."
#[test]
fn each_turn_the_high_first_move_die_moves_first_then_both_fire() {
    let (mut s, r) = setup();
    at(&mut s, 3, "Sudanese");
    let turn = s.turn;
    // Sudanese 2, Dervishes 5: the Dervishes move first.
    let ev = resolve(r.as_ref(), &s, &Command::EndPhase, &[2, 5]);
    assert!(ev.contains(&Event::VolleyFire(VfEvent::MoveOrder { order: vec![1, 0] })));
    let s = apply(&s, &ev);
    assert_eq!((s.turn, s.active_side, s.phase), (turn + 1, 1, 0));
    let s = apply(&s, &resolve(r.as_ref(), &s, &Command::EndPhase, &[]));
    assert_eq!((s.active_side, s.phase), (0, 0), "then the Sudanese move");
    let s = apply(&s, &resolve(r.as_ref(), &s, &Command::EndPhase, &[]));
    assert_eq!(s.phase, 1, "then one fire phase for both");
    // Ties are rolled again.
    let mut t = s.clone();
    at(&mut t, 3, "Sudanese");
    let ev = resolve(r.as_ref(), &t, &Command::EndPhase, &[3, 3, 6, 1]);
    assert!(ev.contains(&Event::VolleyFire(VfEvent::MoveOrder { order: vec![0, 1] })));
}

/// One action per unit per phase (a unit moves or changes formation, not
/// both).
#[test]
fn a_unit_takes_one_action_a_phase() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let mv = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [36.0, 12.0]}),
    );
    let s2 = apply(&s, &resolve(r.as_ref(), &s, &mv, &[2, 2, 2]));
    let form = action(
        "form",
        serde_json::json!({"unit": "1st Section", "formation": "column"}),
    );
    assert_eq!(refusal_kind(r.check(&s2, &form)), RefusalKind::AlreadyActed);
    assert_eq!(refusal_kind(r.check(&s2, &mv)), RefusalKind::AlreadyActed);
    // Another unit still may.
    let gun = action(
        "move",
        serde_json::json!({"unit": "Gardner", "to_in": [50.0, 10.0]}),
    );
    assert!(r.check(&s2, &gun).is_ok());
}

/// "The attacker will close in on the target halting 1" away and take any
/// and all defensive fire as he closes in."
#[test]
fn a_charge_halts_one_inch_away_and_takes_defensive_fire() {
    let (mut s, r) = setup();
    shift_unit(&mut s, "Hadendowa", Vector2::new(0.0, -20.0));
    at(&mut s, 0, "Dervishes");
    let charge = action(
        "charge",
        serde_json::json!({"unit": "Hadendowa", "target": "1st Section"}),
    );
    assert!(r.check(&s, &charge).is_ok());
    let ev = resolve(r.as_ref(), &s, &charge, &[3, 3, 3, 3]);
    let s2 = apply(&s, &ev);
    let gap = |s: &GameState| {
        let (_, a) = s.unit_named("Hadendowa").unwrap();
        let (_, d) = s.unit_named("1st Section").unwrap();
        a.figures
            .iter()
            .flat_map(|x| d.figures.iter().map(move |y| (*x, *y)))
            .map(|(x, y)| {
                (s.figure(x).unwrap().placement.center_in_table
                    - s.figure(y).unwrap().placement.center_in_table)
                    .norm()
            })
            .fold(f64::INFINITY, f64::min)
    };
    assert!(
        (gap(&s2) - 2.0).abs() < 1e-6,
        "halted 1 in away: {}",
        gap(&s2)
    );
    assert!(
        notes(&ev)
            .iter()
            .any(|n| n.contains("gives defensive fire")),
        "{:#?}",
        notes(&ev)
    );
    // The 1st Section fired: Hadendowa men are down.
    let (_, h) = s2.unit_named("Hadendowa").unwrap();
    assert!(h.figures.iter().any(|id| !s2.figure(*id).unwrap().active()));
    // The melee follows in the melee phase.
    let mut m = s2.clone();
    at(&mut m, 2, "Dervishes");
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Hadendowa", "defender": "1st Section"}),
    );
    assert!(r.check(&m, &melee).is_ok());
    // Too far: the charge falls short.
    let (mut far, _) = setup();
    at(&mut far, 0, "Dervishes");
    let ev = resolve(r.as_ref(), &far, &charge, &[1, 1, 1, 1]);
    assert!(notes(&ev).iter().any(|n| n.contains("falls short")));
}

/// "Sudanese/British, if charged, can always attempt to reform, evade the
/// charge(one normal move distance), or charge to meet a charge. Cannot do
/// so if a 6 is rolled on a D6." and "Dervishes can automatically attempt
/// to avoid a charge by moving one normal move distance directly away".
#[test]
fn the_charged_unit_responds_failing_on_a_six_and_dervishes_avoid() {
    let (mut s, r) = setup();
    shift_unit(&mut s, "Hadendowa", Vector2::new(0.0, -20.0));
    at(&mut s, 0, "Dervishes");
    let charge = |response: serde_json::Value| {
        action(
            "charge",
            serde_json::json!({"unit": "Hadendowa", "target": "1st Section", "response": response}),
        )
    };
    let evade = charge(serde_json::json!({"kind": "evade"}));
    let before = at_of(&s, "1st Section 1");
    // A 6: the response fails, the section stands (and fires).
    let ev = resolve(r.as_ref(), &s, &evade, &[6, 3, 3, 3, 3]);
    assert_eq!(at_of(&apply(&s, &ev), "1st Section 1"), before);
    assert!(notes(&ev).iter().any(|n| n.contains("fails to respond")));
    // A 2: it evades 3 d6 (4 + 4 + 4) directly away.
    let ev = resolve(r.as_ref(), &s, &evade, &[2, 4, 4, 4, 1, 1, 1, 1]);
    let after = at_of(&apply(&s, &ev), "1st Section 1");
    assert!(((before - after).norm() - 8.0).abs() < 1e-6, "{after}");
    // Square: reform in place.
    let square = charge(serde_json::json!({"kind": "reform", "formation": "square"}));
    let s3 = apply(&s, &resolve(r.as_ref(), &s, &square, &[1, 3, 3, 3, 3]));
    assert_eq!(s3.unit_named("1st Section").unwrap().1.formation, "square");
    // Dervishes avoid without the d6: the first dice are their move.
    let (mut d, _) = setup();
    at(&mut d, 0, "Sudanese");
    shift_unit(&mut d, "Hadendowa", Vector2::new(0.0, -20.0));
    let c = action(
        "charge",
        serde_json::json!({"unit": "1st Section", "target": "Hadendowa", "response": {"kind": "evade"}}),
    );
    let ev = resolve(r.as_ref(), &d, &c, &[6, 6, 6, 6]);
    assert!(!notes(&ev).iter().any(|n| n.contains("fails")));
    let emir = at_of(&apply(&d, &ev), "Hadendowa 1") - at_of(&d, "Hadendowa 1");
    assert!((emir.norm() - 24.0).abs() < 1e-6, "{emir}");
}

/// "The loser falls back a six D6 distance directly away from the fight
/// and is now SHAKEN. ... captured if they collide with organized enemy
/// forces. ... Fall back direction is perpendicular to the front facing of
/// the winner."
#[test]
fn the_melee_loser_falls_back_six_d6_shaken_and_is_captured_on_collision() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    keep_only(&mut s, "Swordsmen", &["Swordsmen 2"]);
    keep_only(&mut s, "Scouts", &["Scouts 3"]);
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    let start = at_of(&s, "Scouts 3");
    // 5 + 1 against 2: the scout loses with a 2 and falls back 6 in along
    // the swordsmen's facing (-y).
    let ev = resolve(r.as_ref(), &s, &melee, &[5, 2, 1, 1, 1, 1, 1, 1]);
    let s2 = apply(&s, &ev);
    assert!((at_of(&s2, "Scouts 3") - (start + Vector2::new(0.0, -6.0))).norm() < 1e-6);
    let (_, scouts) = s2.unit_named("Scouts").unwrap();
    assert!(scouts.rules.volley_fire().unwrap().shaken);
    // An organized enemy in the path: captured.
    let mut c = s.clone();
    let id = c.figure_named("Hadendowa 1").unwrap().id;
    c.figures[id.index()].placement.center_in_table = start + Vector2::new(0.0, -4.0);
    let ev = resolve(r.as_ref(), &c, &melee, &[5, 2, 1, 1, 1, 1, 1, 1]);
    assert!(!apply(&c, &ev).figure_named("Scouts 3").unwrap().active());
    assert!(notes(&ev).iter().any(|n| n.contains("captured")));
}

/// "If both Forces are testing morale, roll low die for who tests first -
/// if this test fails, other Force need not test!!"
#[test]
fn when_both_forces_test_the_low_die_tests_first_and_a_failure_ends_it() {
    let (mut s, r) = setup();
    at(&mut s, 3, "Sudanese");
    for side in 0..2 {
        let ids: Vec<usize> = (0..s.figures.len())
            .filter(|&i| s.figures[i].side == side)
            .collect();
        for &i in ids.iter().take(ids.len() * 6 / 10) {
            s.figures[i].wound = Some(Wound::Killed);
        }
    }
    let morale = action("morale", serde_json::json!({"side": "Sudanese"}));
    let tests = |ev: &[Event]| -> Vec<usize> {
        ev.iter()
            .filter_map(|e| match e {
                Event::VolleyFire(VfEvent::Morale { side, .. }) => Some(*side),
                _ => None,
            })
            .collect()
    };
    // Sudanese 4, Dervishes 2: the Dervishes test first; a 1 is disaster.
    let ev = resolve(r.as_ref(), &s, &morale, &[4, 2, 1]);
    assert_eq!(tests(&ev), vec![1], "the Sudanese need not test");
    // Sudanese low: they test first and hold (9), then the Dervishes (7).
    let ev = resolve(r.as_ref(), &s, &morale, &[2, 4, 9, 7]);
    assert_eq!(tests(&ev), vec![0, 1]);
    let s2 = apply(&s, &ev);
    assert_eq!(
        refusal_kind(r.check(&s2, &morale)),
        RefusalKind::AlreadyActed
    );
}

/// "Cover is woods, scrub, gullies, ravines, embankments, etc., and
/// buildings." and "All concealment must be defined at the commencement of
/// the game.": cover is read from the scenario's terrain; the players'
/// `cover` status overrides it.
#[test]
fn cover_is_read_from_the_terrain_with_the_players_override() {
    let (mut s, _) = setup();
    let rules = VolleyFireRules::builtin().unwrap();
    let cover = |s: &GameState, n: &str| rules.in_cover(s, s.unit_named(n).unwrap().1);
    assert!(cover(&s, "Riflemen"), "the riflemen lie in the scrub");
    assert!(!cover(&s, "1st Section"));
    let (ui, _) = s.unit_named("Riflemen").unwrap();
    s.units[ui].rules.volley_fire_mut().cover = Some(false);
    assert!(!cover(&s, "Riflemen"));
}

/// "All Sudanese infantry, guns, and all mounted troops move one-half the
/// above stated distances when moving through rough terrain" and "units
/// can move through friendly units with no disruption but their move
/// distance is cut in half (round up)."
#[test]
fn rough_ground_and_friends_in_the_path_halve_the_move() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let through_scrub = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [20.0, 35.0]}),
    );
    let ev = resolve(r.as_ref(), &s, &through_scrub, &[6, 6, 5]);
    assert!((moved_in(&ev) - 9.0).abs() < 1e-9, "17 halved up");
    // The player says the ground is open.
    let open = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [20.0, 35.0], "rough": false}),
    );
    assert!((moved_in(&resolve(r.as_ref(), &s, &open, &[6, 6, 5])) - 17.0).abs() < 1e-9);
    // The Gardner (no leader: two dice) across the section's front.
    let gun = action(
        "move",
        serde_json::json!({"unit": "Gardner", "to_in": [30.0, 8.0]}),
    );
    assert!((moved_in(&resolve(r.as_ref(), &s, &gun, &[6, 5])) - 6.0).abs() < 1e-9);
}

/// "Pistols hit with 6's only in all cases. Point blank roll 6 D6, deadly
/// range roll 4 D6, and close roll 2 D6." and mounted leaders "Cannot be
/// fired upon".
#[test]
fn pistols_roll_six_dice_at_point_blank_and_mounted_leaders_are_not_fired_upon() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    let (ui, u) = s.unit_named("Scouts").unwrap();
    for id in u.figures.clone() {
        s.figures[id.index()].weapon = "pistols".into();
    }
    s.units[ui].formation = "column".into();
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Scouts", "target": "Swordsmen"}),
    );
    let odds = r.odds(&s, &fire).unwrap();
    let p = odds.iter().find(|o| o.name == "p_any_hit").unwrap().p;
    approx::assert_relative_eq!(p, 1.0 - (5.0_f64 / 6.0).powi(18), epsilon = 1e-12);
    let mut faces = vec![1; 18];
    faces[0] = 6;
    faces[5] = 6;
    let ev = resolve(r.as_ref(), &s, &fire, &faces);
    let down = ev
        .iter()
        .filter(|e| matches!(e, Event::Wounded { .. }))
        .count();
    assert_eq!(down, 2);
    let (si, _) = s.unit_named("Swordsmen").unwrap();
    s.units[si].rules.volley_fire_mut().troops = Some(Troops::MountedLeaders);
    assert_eq!(refusal_kind(r.check(&s, &fire)), RefusalKind::CannotDo);
}

/// "Gun jams if a 20 is rolled on the firing die. Gun and crew fall back
/// 12" to clear the jam ..., and does not fire that turn."
#[test]
fn a_gardner_jam_falls_back_twelve_inches_and_is_cleared_next_turn() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Hadendowa"}),
    );
    let before = at_of(&s, "Gardner 1");
    let s2 = apply(&s, &resolve(r.as_ref(), &s, &fire, &[20]));
    assert!(
        s2.unit_named("Gardner")
            .unwrap()
            .1
            .rules
            .volley_fire()
            .unwrap()
            .jammed
    );
    let back = before - at_of(&s2, "Gardner 1");
    assert!((back.norm() - before.y.min(12.0)).abs() < 1e-6, "{back}");
    // Cleared when the turn ends.
    let mut t = s2.clone();
    at(&mut t, 3, "Sudanese");
    let t = apply(&t, &resolve(r.as_ref(), &t, &Command::EndPhase, &[6, 1]));
    assert!(
        !t.unit_named("Gardner")
            .unwrap()
            .1
            .rules
            .volley_fire()
            .unwrap()
            .jammed
    );
}

/// Check decides without dice: a refused charge is refused by check with
/// the rule's kind (a shaken unit "cannot initiate melee's").
#[test]
fn a_shaken_unit_cannot_charge() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Dervishes");
    let (ui, _) = s.unit_named("Hadendowa").unwrap();
    s.units[ui].rules.volley_fire_mut().shaken = true;
    let charge = action(
        "charge",
        serde_json::json!({"unit": "Hadendowa", "target": "1st Section"}),
    );
    assert_eq!(refusal_kind(r.check(&s, &charge)), RefusalKind::Morale);
}

/// "Guns that limber or unlimber (in place), cannot fire the turn that
/// they do so."
#[test]
fn a_gun_that_limbers_or_unlimbers_does_not_fire_that_turn() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let limber = action(
        "form",
        serde_json::json!({"unit": "Gardner", "formation": "limbered"}),
    );
    let mut s2 = apply(&s, &resolve(r.as_ref(), &s, &limber, &[1, 1]));
    at(&mut s2, 1, "Sudanese");
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Hadendowa"}),
    );
    assert_eq!(refusal_kind(r.check(&s2, &fire)), RefusalKind::CannotDo);
    // Unlimbered next turn: no fire in that turn either.
    s2.turn += 1;
    at(&mut s2, 0, "Sudanese");
    let unlimber = action(
        "form",
        serde_json::json!({"unit": "Gardner", "formation": "deployed", "facing_deg": 90.0}),
    );
    let mut s3 = apply(&s2, &resolve(r.as_ref(), &s2, &unlimber, &[1, 1]));
    at(&mut s3, 1, "Sudanese");
    assert_eq!(refusal_kind(r.check(&s3, &fire)), RefusalKind::CannotDo);
    // The turn after, it fires.
    s3.turn += 1;
    assert!(r.check(&s3, &fire).is_ok(), "{:?}", r.check(&s3, &fire));
}

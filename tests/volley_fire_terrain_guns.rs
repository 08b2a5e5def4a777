//! Volley Fire! buildings, overhead fire from elevation, the deployed gun's
//! one-d6 move and the gun a beaten crew leaves behind. Buildings and hills
//! are terrain areas of the scenario (kinds `building` and `hill`), read
//! from the table as cover and rough ground are. Each test quotes the
//! sentence it enforces.

use std::sync::Arc;

use nalgebra::{Point2, Vector2};
use spotter::core::RefusalKind;
use spotter::game::{Event, GameState};
use spotter::geometry::{TerrainArea, point_in_polygon};
use spotter::rules::RuleSet;
use spotter::rules::volley_fire::VolleyFireRules;

use crate::common::refusal_kind;
use crate::common::volley_fire::{action, apply, at, resolve, setup, shift_unit};

fn keep_only(s: &mut GameState, unit: &str, names: &[&str]) {
    let (_, u) = s.unit_named(unit).unwrap();
    for id in u.figures.clone() {
        let f = &mut s.figures[id.index()];
        if !names.contains(&f.name.as_str()) {
            f.wound = Some(spotter::rules::stand_to::Wound::Killed);
        }
    }
}

fn place(s: &mut GameState, figure: &str, x: f64, y: f64) {
    let id = s.figure_named(figure).unwrap().id;
    s.figures[id.index()].placement.center_in_table = Point2::new(x, y);
}

fn notes(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn rolled(ev: &[Event], purpose: &str) -> bool {
    ev.iter()
        .any(|e| matches!(e, Event::Rolled { purpose: p, .. } if p.contains(purpose)))
}

/// A terrain area as a scenario file writes it (kinds by name).
fn area(name: &str, kinds: &[&str], poly: &[[f64; 2]]) -> TerrainArea {
    serde_json::from_value(serde_json::json!({
        "name": name, "kinds": kinds, "polygon_in": poly
    }))
    .unwrap_or_else(|e| panic!("a terrain area of kinds {kinds:?}: {e}"))
}

fn alive_of(s: &GameState, unit: &str) -> Vec<Point2<f64>> {
    let (_, u) = s.unit_named(unit).unwrap();
    u.figures
        .iter()
        .map(|id| &s.figures[id.index()])
        .filter(|f| f.active())
        .map(|f| f.placement.center_in_table)
        .collect()
}

fn melee_loser(ev: &[Event]) -> Option<String> {
    notes(ev).into_iter().find_map(|n| {
        n.split_once(" loses the melee")
            .map(|(who, _)| who.to_owned())
    })
}

const FARMHOUSE: [[f64; 2]; 4] = [[30.0, 14.0], [42.0, 14.0], [42.0, 20.0], [30.0, 20.0]];

/// The section 2 in from the farmhouse's near wall (its front at y = 12).
fn at_the_farmhouse() -> (GameState, Arc<dyn RuleSet>) {
    let (mut s, r) = setup();
    s.terrain.push(area("farmhouse", &["building"], &FARMHOUSE));
    shift_unit(&mut s, "1st Section", Vector2::new(0.0, 4.0));
    at(&mut s, 0, "Sudanese");
    (s, r)
}

/// Halts the section outside for a turn, then takes it in.
fn into_the_farmhouse(s: &GameState, r: &dyn RuleSet) -> GameState {
    let enter = action(
        "enter-building",
        serde_json::json!({"unit": "1st Section", "building": "farmhouse"}),
    );
    let mut halted = apply(s, &resolve(r, s, &enter, &[]));
    halted.turn += 1;
    at(&mut halted, 0, "Sudanese");
    apply(&halted, &resolve(r, &halted, &enter, &[]))
}

fn kills(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| matches!(e, Event::Wounded { .. }))
        .count()
}

/// "A. To enter, must spend one turn halted outside - fire at 1/2 hit
/// result (round up) while so doing."
#[test]
fn a_building_is_entered_after_a_turn_halted_outside_firing_at_half() {
    let (s, r) = at_the_farmhouse();
    let walk_in = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [36.0, 17.0]}),
    );
    assert_eq!(
        refusal_kind(r.check(&s, &walk_in)),
        RefusalKind::CannotDo,
        "a unit does not walk into a building without a turn halted outside"
    );
    let enter = action(
        "enter-building",
        serde_json::json!({"unit": "1st Section", "building": "farmhouse"}),
    );
    let far = action(
        "enter-building",
        serde_json::json!({"unit": "Hadendowa", "building": "farmhouse"}),
    );
    let mut dervish_turn = s.clone();
    at(&mut dervish_turn, 0, "Dervishes");
    assert_eq!(
        refusal_kind(r.check(&dervish_turn, &far)),
        RefusalKind::TooFar
    );
    let ev = resolve(r.as_ref(), &s, &enter, &[]);
    let halted = apply(&s, &ev);
    assert_eq!(
        alive_of(&halted, "1st Section"),
        alive_of(&s, "1st Section")
    );
    assert!(
        notes(&ev).iter().any(|n| n.contains("halts outside")),
        "{:?}",
        notes(&ev)
    );
    assert_eq!(
        refusal_kind(r.check(&halted, &enter)),
        RefusalKind::AlreadyActed
    );
    // Its fire this turn: half the hit result, rounded up.
    let fire = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Hadendowa"}),
    );
    let (mut plain, mut waiting) = (s.clone(), halted.clone());
    at(&mut plain, 1, "Sudanese");
    at(&mut waiting, 1, "Sudanese");
    let full = kills(&resolve(r.as_ref(), &plain, &fire, &[9, 9]));
    let half = kills(&resolve(r.as_ref(), &waiting, &fire, &[9, 9]));
    assert!(full >= 4, "{full} hits in the open");
    assert_eq!(half, full.div_ceil(2), "halted outside: {full} -> {half}");
    // The next turn it goes in: its men stand inside, in cover.
    let mut next = halted.clone();
    next.turn += 1;
    at(&mut next, 0, "Sudanese");
    let inside = apply(&next, &resolve(r.as_ref(), &next, &enter, &[]));
    let men = alive_of(&inside, "1st Section");
    assert!(
        men.iter()
            .all(|p| point_in_polygon(&FARMHOUSE.map(|[x, y]| Point2::new(x, y)), *p))
    );
    let rules = VolleyFireRules::builtin().unwrap();
    let (_, u) = inside.unit_named("1st Section").unwrap();
    assert!(rules.in_cover(&inside, u), "a building is cover");
}

/// "B. Troops inside take less casualties from fire and get a bonus in
/// melee' combat, but cannot support outside melee's." ("Defending
/// Buildings, Trenches, Walls, etc. Die Roll + 1, Win Ties")
#[test]
fn troops_in_a_building_fight_as_defending_works_and_do_not_support_outside() {
    let (s, r) = at_the_farmhouse();
    let mut inside = into_the_farmhouse(&s, r.as_ref());
    at(&mut inside, 2, "Dervishes");
    // The section's man nearest the far wall, a spearman 2 in outside it.
    let (_, u) = inside.unit_named("1st Section").unwrap();
    let man = u
        .figures
        .iter()
        .map(|id| &inside.figures[id.index()])
        .filter(|f| f.active() && !f.leader)
        .max_by(|a, b| {
            a.placement
                .center_in_table
                .y
                .total_cmp(&b.placement.center_in_table.y)
        })
        .unwrap();
    let (name, p) = (man.name.clone(), man.placement.center_in_table);
    keep_only(&mut inside, "1st Section", &[&name]);
    keep_only(&mut inside, "Hadendowa", &["Hadendowa 1"]);
    place(&mut inside, "Hadendowa 1", p.x, p.y + 2.0);
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Hadendowa", "defender": "1st Section"}),
    );
    // Spearman 5 + 1 = 6; the double rank's 4 + 1 = 5 loses in the open,
    // and ties (+1 more, and wins ties) in the building.
    let ev = resolve(r.as_ref(), &inside, &melee, &[5, 4]);
    assert_eq!(
        melee_loser(&ev).as_deref(),
        Some("Hadendowa"),
        "{:?}",
        notes(&ev)
    );
    let mut open = inside.clone();
    open.terrain.clear();
    let ev = resolve(r.as_ref(), &open, &melee, &[5, 4]);
    assert_eq!(melee_loser(&ev).as_deref(), Some("1st Section"));
    // The Gardner's crew in a blockhouse 4 in behind the scouts does not
    // support their melee outside.
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    shift_unit(&mut s, "Gardner", Vector2::new(10.0, 8.0));
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    let pairs: Vec<u32> = [6, 2].repeat(7);
    let said = notes(&resolve(r.as_ref(), &s, &melee, &pairs)).join("\n");
    assert!(said.contains("support from Gardner"), "{said}");
    s.terrain.push(area(
        "blockhouse",
        &["building"],
        &[[57.0, 15.0], [63.0, 15.0], [63.0, 17.0], [57.0, 17.0]],
    ));
    let said = notes(&resolve(r.as_ref(), &s, &melee, &pairs)).join("\n");
    assert!(said.contains("fight 3 of Scouts"), "{said}");
    assert!(!said.contains("support from"), "{said}");
}

/// "C. To leave a building move out 12" in any direction from the center of
/// same and form and face in any direction in any formation."
#[test]
fn troops_leave_a_building_twelve_inches_from_its_centre_in_any_formation() {
    let (s, r) = at_the_farmhouse();
    let mut inside = into_the_farmhouse(&s, r.as_ref());
    inside.turn += 1;
    at(&mut inside, 0, "Sudanese");
    let centre = Point2::new(36.0, 17.0);
    let out = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [36.0, 40.0]}),
    );
    let ev = resolve(r.as_ref(), &inside, &out, &[]);
    assert!(!rolled(&ev, "moves"), "no move dice: {ev:?}");
    let left = apply(&inside, &ev);
    let (_, u) = left.unit_named("1st Section").unwrap();
    let front: Vec<Point2<f64>> = u
        .figures
        .iter()
        .enumerate()
        .filter(|(k, _)| u.rank_of(*k) == 0)
        .map(|(_, id)| left.figures[id.index()].placement.center_in_table)
        .collect();
    let mid = front.iter().fold(Vector2::zeros(), |a, p| a + p.coords) / front.len() as f64;
    approx::assert_relative_eq!((Point2::from(mid) - centre).norm(), 12.0, epsilon = 1e-6);
    let house = FARMHOUSE.map(|[x, y]| Point2::new(x, y));
    assert!(
        alive_of(&left, "1st Section")
            .iter()
            .all(|p| !point_in_polygon(&house, *p))
    );
    // Or out to the west, in line, facing along the wall.
    let form = action(
        "form",
        serde_json::json!({"unit": "1st Section", "formation": "line", "facing_deg": 0.0, "to_in": [10.0, 17.0]}),
    );
    let ev = resolve(r.as_ref(), &inside, &form, &[]);
    assert!(!rolled(&ev, "changes formation"), "no move dice: {ev:?}");
    let left = apply(&inside, &ev);
    let (_, u) = left.unit_named("1st Section").unwrap();
    assert_eq!(u.formation, "line");
    let men: Vec<_> = u
        .figures
        .iter()
        .map(|id| &left.figures[id.index()])
        .filter(|f| f.active())
        .collect();
    assert!(men.iter().all(|f| f.placement.facing_deg.abs() < 1e-9));
    // A line facing 0: its front is one file, 12 in west of the centre.
    let xs: Vec<f64> = men.iter().map(|f| f.placement.center_in_table.x).collect();
    assert!(xs.iter().all(|x| (x - 24.0).abs() < 1e-6), "{xs:?}");
}

/// "G. Gun jams if a 20 is rolled on the firing die. Gun and crew fall back
/// 12" to clear the jam (will not leave building or square), and does not
/// fire that turn."
#[test]
fn a_jammed_gun_in_a_building_does_not_leave_it() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    shift_unit(&mut s, "Gardner", Vector2::new(0.0, 16.0));
    shift_unit(&mut s, "Hadendowa", Vector2::new(14.0, -8.0));
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Hadendowa"}),
    );
    let y = |s: &GameState| {
        s.figure_named("Gardner 1")
            .unwrap()
            .placement
            .center_in_table
            .y
    };
    let open = apply(&s, &resolve(r.as_ref(), &s, &fire, &[20]));
    approx::assert_relative_eq!(y(&s) - y(&open), 12.0, epsilon = 1e-6);
    s.terrain.push(area(
        "blockhouse",
        &["building"],
        &[[47.0, 21.0], [53.0, 21.0], [53.0, 25.0], [47.0, 25.0]],
    ));
    let ev = resolve(r.as_ref(), &s, &fire, &[20]);
    let back = y(&s) - y(&apply(&s, &ev));
    assert!(
        back > 2.5 && back <= 3.0 + 1e-9,
        "fell back {back} in: {:?}",
        notes(&ev)
    );
}

/// "C. For rifles or guns to fire overhead the target must be further from
/// any "obstacle" than the firer, and the target or firer must be
/// elevated."
#[test]
fn rifles_fire_over_others_only_with_elevation_and_the_target_further_off() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    keep_only(&mut s, "1st Section", &["1st Section 1"]);
    keep_only(&mut s, "Hadendowa", &["Hadendowa 1"]);
    keep_only(&mut s, "Gardner", &["Gardner 1"]);
    place(&mut s, "1st Section 1", 36.0, 8.0);
    place(&mut s, "Hadendowa 1", 36.0, 30.0);
    let fire = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Hadendowa"}),
    );
    r.check(&s, &fire).expect("a clear line");
    // A gunner stands in the line, 4 in ahead of the rifleman.
    place(&mut s, "Gardner 1", 36.0, 12.0);
    assert_eq!(
        refusal_kind(r.check(&s, &fire)),
        RefusalKind::OutOfSight,
        "no fire over a friend on the flat"
    );
    // The rifleman on a rise: the target is further from the gunner (18 in)
    // than he is (4 in).
    let mut high = s.clone();
    high.terrain.push(area(
        "rise",
        &["hill"],
        &[[30.0, 4.0], [42.0, 4.0], [42.0, 10.0], [30.0, 10.0]],
    ));
    r.check(&high, &fire).expect("fire over from the rise");
    place(&mut high, "Gardner 1", 36.0, 27.0);
    assert_eq!(
        refusal_kind(r.check(&high, &fire)),
        RefusalKind::OutOfSight,
        "the gunner stands nearer the target than the firer"
    );
    // The target on the rise instead.
    let mut low = s.clone();
    low.terrain.push(area(
        "rise",
        &["hill"],
        &[[30.0, 28.0], [42.0, 28.0], [42.0, 34.0], [30.0, 34.0]],
    ));
    r.check(&low, &fire)
        .expect("fire over at a target on the rise");
}

/// "B. Deployed guns can move one D6 and fire that turn." with the
/// movement table's "British Guns Three D6 (deployed)".
#[test]
fn a_deployed_gun_moves_one_d6_and_fires_or_three_d6_and_does_not() {
    let (mut s, r) = setup();
    shift_unit(&mut s, "Hadendowa", Vector2::new(14.0, -8.0));
    at(&mut s, 0, "Sudanese");
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Hadendowa"}),
    );
    let full = action(
        "move",
        serde_json::json!({"unit": "Gardner", "to_in": [50.0, 20.0]}),
    );
    // The table's three d6, one less: the gun has no leader attached.
    let ev = resolve(r.as_ref(), &s, &full, &[3, 3]);
    assert!(rolled(&ev, "(2 d6"), "{ev:?}");
    let mut moved = apply(&s, &ev);
    at(&mut moved, 1, "Sudanese");
    assert_eq!(
        refusal_kind(r.check(&moved, &fire)),
        RefusalKind::CannotDo,
        "a gun that moved its three d6 does not fire that turn"
    );
    let short = action(
        "move",
        serde_json::json!({"unit": "Gardner", "to_in": [50.0, 20.0], "fire_after": true}),
    );
    let ev = resolve(r.as_ref(), &s, &short, &[3]);
    assert!(rolled(&ev, "(1 d6"), "{ev:?}");
    let mut moved = apply(&s, &ev);
    approx::assert_relative_eq!(
        moved
            .figure_named("Gardner 1")
            .unwrap()
            .placement
            .center_in_table
            .y,
        11.0,
        epsilon = 1e-6
    );
    at(&mut moved, 1, "Sudanese");
    r.check(&moved, &fire).expect("moved one d6: it fires");
    // Only a deployed gun.
    let (gi, _) = s.unit_named("Gardner").unwrap();
    s.units[gi].formation = "limbered".into();
    assert_eq!(refusal_kind(r.check(&s, &short)), RefusalKind::CannotDo);
    let not_gun = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [36.0, 20.0], "fire_after": true}),
    );
    assert_eq!(refusal_kind(r.check(&s, &not_gun)), RefusalKind::CannotDo);
}

/// "D. If a gun crew loses a melee they rout to their direct rear,
/// disordered, the gun stays in place. Guns that are abandoned, crewless,
/// or captured can be manned by infantry or Dervish foot but, always fire
/// as if target is in cover."
#[test]
fn a_beaten_crew_leaves_its_gun_which_others_man_and_fire_as_into_cover() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    // The swordsmen 2 in ahead of the gun's crew.
    shift_unit(&mut s, "Swordsmen", Vector2::new(-10.0, -11.5));
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Gardner"}),
    );
    let ev = resolve(r.as_ref(), &s, &melee, &[6, 2].repeat(4));
    assert_eq!(melee_loser(&ev).as_deref(), Some("Gardner"));
    let lost = apply(&s, &ev);
    // The crew routs to its rear (6 in on six 1s); the gun stays.
    approx::assert_relative_eq!(
        lost.figure_named("Gardner 1")
            .unwrap()
            .placement
            .center_in_table
            .y,
        2.0,
        epsilon = 1e-6
    );
    let mut crew_fires = lost.clone();
    at(&mut crew_fires, 1, "Sudanese");
    let crew_fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Swordsmen"}),
    );
    assert_eq!(
        refusal_kind(r.check(&crew_fires, &crew_fire)),
        RefusalKind::CannotDo,
        "the crew left its gun where it stood"
    );
    // Next move phase: the swordsmen man it and turn it on the section.
    let mut manning = lost.clone();
    at(&mut manning, 0, "Dervishes");
    let man = action(
        "man-gun",
        serde_json::json!({"unit": "Swordsmen", "facing_deg": 180.0}),
    );
    let too_far = action("man-gun", serde_json::json!({"unit": "Riflemen"}));
    assert_eq!(
        refusal_kind(r.check(&manning, &too_far)),
        RefusalKind::TooFar
    );
    let manned = apply(&manning, &resolve(r.as_ref(), &manning, &man, &[]));
    let mut firing = manned.clone();
    at(&mut firing, 1, "Dervishes");
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Swordsmen", "target": "1st Section", "gun": true}),
    );
    let before = alive_of(&firing, "1st Section").len();
    // A 10 at point blank: ten hits, halved as into cover.
    let ev = resolve(r.as_ref(), &firing, &fire, &[10]);
    let after = alive_of(&apply(&firing, &ev), "1st Section").len();
    assert_eq!(before - after, 5, "{:?}", notes(&ev));
    assert!(notes(&ev).iter().any(|n| n.contains("half for cover")));
    // Troops that are not infantry or Dervish foot do not man it.
    let (hi, _) = manning.unit_named("Swordsmen").unwrap();
    manning.units[hi].rules.volley_fire_mut().troops =
        Some(spotter::rules::volley_fire::status::Troops::DervishHorse);
    assert_eq!(refusal_kind(r.check(&manning, &man)), RefusalKind::CannotDo);
}

/// "A. To enter, must spend one turn halted outside": the melee winner's
/// "one normal move distance" is a move like any other, so it does not
/// walk into a building either.
#[test]
fn the_melee_winner_does_not_walk_into_a_building() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    // A hut behind the swordsmen (their front at y = 21.5, facing -y).
    s.terrain.push(area(
        "hut",
        &["building"],
        &[[57.0, 25.0], [63.0, 25.0], [63.0, 29.0], [57.0, 29.0]],
    ));
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    // Every die a 1: the swordsmen (+1, win ties) win each pair.
    let won = apply(&s, &resolve(r.as_ref(), &s, &melee, &[]));
    let into = action(
        "winner-move",
        serde_json::json!({"unit": "Swordsmen", "to_in": [60.0, 26.0]}),
    );
    let why = match r.check(&won, &into) {
        Err(spotter::rules::RuleError::Refused(x)) => {
            assert_eq!(x.kind, RefusalKind::CannotDo, "{}", x.why);
            x.why
        }
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(why.contains("does not walk into hut"), "{why}");
    // A move that stops short of the hut is still the winner's.
    let short = action(
        "winner-move",
        serde_json::json!({"unit": "Swordsmen", "to_in": [60.0, 23.5]}),
    );
    r.check(&won, &short).expect("a move short of the hut");
}

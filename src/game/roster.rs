//! Rosters: the named men of each side (name, rank, weapon, experience
//! number), loaded from `scenarios/rosters/*.toml`, and the player's binding
//! of a tracked figure to a side and a roster entry.
//!
//! # Conventions
//! - A binding is keyed by the tracker's [`TrackId`]: ids are stable through
//!   every move, lift and put-down, so the binding is made once and survives
//!   the game. A figure taken off keeps its binding (the casualty is still
//!   that man).
//! - Experience numbers are integers from 1 to [`MAX_EXPERIENCE`]. Stand To!
//!   uses 1 novice, 2-4 trained, 5 veteran, 6 hero or fanatic; Soldiers in
//!   Time rates figures on a d10, hence the wider range.
//!
//! A roster file:
//!
//! ```toml
//! [roster]
//! name = "Sergeant Hale's section"
//! side = "british"
//!
//! [[figure]]
//! name = "Sergeant Hale"
//! rank = "sergeant"
//! weapon = "Martini-Henry rifle"
//! experience = 6
//! edge = "red"        # optional: the painted base edge, checked on binding
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::spec::{SourceFile, SpecError, SpecProblem};
use crate::vision::EdgeColour;
use crate::vision::track::{TrackId, TrackedFigure};

/// Highest experience number any supported rule set uses (a d10 rating).
pub const MAX_EXPERIENCE: u8 = 10;

/// One man on a roster, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterEntry {
    pub name: String,
    pub rank: String,
    pub weapon: String,
    /// Experience number, 1..=[`MAX_EXPERIENCE`].
    pub experience: u8,
    /// The painted edge colour of his base, when the roster gives it.
    pub edge: Option<EdgeColour>,
}

/// One side's roster, checked: a side, at least one man, unique names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roster {
    pub name: String,
    pub side: String,
    pub figures: Vec<RosterEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRosterFile {
    roster: Spanned<RawRoster>,
    #[serde(default)]
    figure: Vec<Spanned<RawEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRoster {
    #[serde(default)]
    name: String,
    side: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    name: Spanned<String>,
    rank: Spanned<String>,
    weapon: Spanned<String>,
    experience: Spanned<i64>,
    edge: Option<Spanned<String>>,
}

/// What can go wrong with rosters and bindings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RosterError {
    #[error("{0}")]
    Spec(#[from] SpecError),
    #[error("roster `{roster}` has no man called `{name}`")]
    NoSuchEntry { roster: String, name: String },
    #[error("figure {id} is already {name}; unbind it first to change it")]
    FigureAlreadyBound { id: TrackId, name: String },
    #[error("{name} of side {side} is already figure {id}")]
    EntryAlreadyBound {
        name: String,
        side: String,
        id: TrackId,
    },
    #[error(
        "{name} should have a {expected} base edge, but figure {id} is {found}: check the figure or the roster"
    )]
    EdgeMismatch {
        name: String,
        id: TrackId,
        expected: &'static str,
        found: &'static str,
    },
}

impl Roster {
    /// Loads and checks a roster file.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    /// Loads every `*.toml` in a folder, in file-name order. All files are
    /// read; the first broken one is reported.
    pub fn load_dir(dir: &Path) -> Result<Vec<Self>, SpecError> {
        let entries = std::fs::read_dir(dir).map_err(|err| SpecError {
            path: dir.to_owned(),
            problems: vec![SpecProblem {
                line: None,
                field: String::new(),
                message: format!("cannot list the roster folder: {err}"),
            }],
        })?;
        let mut paths: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        paths.iter().map(|p| Self::load(p)).collect()
    }

    /// Parses and checks roster text; every problem is reported at once.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let raw: RawRosterFile = src.parse_toml()?;
        let mut problems = Vec::new();
        let header = raw.roster.get_ref();
        let side = header.side.get_ref().trim().to_owned();
        if side.is_empty() {
            problems.push(src.problem(
                Some(header.side.span()),
                "roster.side",
                "is empty: name the side these men fight for (e.g. \"british\")",
            ));
        }
        if raw.figure.is_empty() {
            problems.push(src.problem(
                Some(raw.roster.span()),
                "figure",
                "no [[figure]] entries: a roster lists at least one man",
            ));
        }
        let mut figures = Vec::new();
        let mut first_line_of: BTreeMap<String, usize> = BTreeMap::new();
        for (i, spanned) in raw.figure.iter().enumerate() {
            let e = spanned.get_ref();
            let mut text = |value: &Spanned<String>, field: &str| {
                let v = value.get_ref().trim().to_owned();
                if v.is_empty() {
                    problems.push(src.problem(
                        Some(value.span()),
                        format!("figure[{i}].{field}"),
                        "is empty",
                    ));
                }
                v
            };
            let name = text(&e.name, "name");
            let rank = text(&e.rank, "rank");
            let weapon = text(&e.weapon, "weapon");
            if !name.is_empty() {
                let line = src.line_of(e.name.span().start);
                if let Some(first) = first_line_of.get(&name) {
                    problems.push(src.problem(
                        Some(e.name.span()),
                        format!("figure[{i}].name"),
                        format!(
                            "`{name}` is already on line {first}: every man needs his own name"
                        ),
                    ));
                } else {
                    first_line_of.insert(name.clone(), line);
                }
            }
            let exp = *e.experience.get_ref();
            let experience = match u8::try_from(exp) {
                Ok(x) if (1..=MAX_EXPERIENCE).contains(&x) => x,
                _ => {
                    problems.push(src.problem(
                        Some(e.experience.span()),
                        format!("figure[{i}].experience"),
                        format!("{exp} is not an experience number (1 to {MAX_EXPERIENCE})"),
                    ));
                    1
                }
            };
            let edge = match &e.edge {
                None => None,
                Some(s) => {
                    let v = s.get_ref().trim().to_lowercase();
                    let found = EdgeColour::ALL.into_iter().find(|c| c.name() == v);
                    if found.is_none() {
                        problems.push(src.problem(
                            Some(s.span()),
                            format!("figure[{i}].edge"),
                            format!("`{v}` is not an edge colour (green, white, blue or red)"),
                        ));
                    }
                    found
                }
            };
            figures.push(RosterEntry {
                name,
                rank,
                weapon,
                experience,
                edge,
            });
        }
        if !problems.is_empty() {
            return Err(src.error(problems));
        }
        let name = if header.name.trim().is_empty() {
            side.clone()
        } else {
            header.name.trim().to_owned()
        };
        Ok(Self {
            name,
            side,
            figures,
        })
    }

    pub fn entry(&self, name: &str) -> Option<&RosterEntry> {
        self.figures.iter().find(|e| e.name == name)
    }
}

/// A figure's side and roster entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub side: String,
    pub entry: RosterEntry,
}

/// Which tracked figure is which man, for the whole game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    by_track: BTreeMap<TrackId, Binding>,
}

impl Bindings {
    /// Binds `figure` to the man `name` of `roster`, once. Refused when the
    /// figure or the man is already bound, or when the roster gives an edge
    /// colour that is not the figure's.
    pub fn bind(
        &mut self,
        figure: &TrackedFigure,
        roster: &Roster,
        name: &str,
    ) -> Result<&Binding, RosterError> {
        let entry = roster.entry(name).ok_or_else(|| RosterError::NoSuchEntry {
            roster: roster.name.clone(),
            name: name.to_owned(),
        })?;
        if let Some(b) = self.by_track.get(&figure.id) {
            return Err(RosterError::FigureAlreadyBound {
                id: figure.id,
                name: b.entry.name.clone(),
            });
        }
        if let Some((&id, _)) = self
            .by_track
            .iter()
            .find(|(_, b)| b.side == roster.side && b.entry.name == entry.name)
        {
            return Err(RosterError::EntryAlreadyBound {
                name: entry.name.clone(),
                side: roster.side.clone(),
                id,
            });
        }
        if let Some(expected) = entry.edge
            && expected != figure.edge
        {
            return Err(RosterError::EdgeMismatch {
                name: entry.name.clone(),
                id: figure.id,
                expected: expected.name(),
                found: figure.edge.name(),
            });
        }
        let binding = self.by_track.entry(figure.id).or_insert(Binding {
            side: roster.side.clone(),
            entry: entry.clone(),
        });
        Ok(binding)
    }

    /// Undoes a binding (the player picked the wrong figure).
    pub fn unbind(&mut self, id: TrackId) -> Option<Binding> {
        self.by_track.remove(&id)
    }

    pub fn get(&self, id: TrackId) -> Option<&Binding> {
        self.by_track.get(&id)
    }

    pub fn iter(&self) -> impl Iterator<Item = (TrackId, &Binding)> {
        self.by_track.iter().map(|(&id, b)| (id, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::BaseKind;
    use crate::vision::track::FigureState;
    use nalgebra::Point2;

    const GOOD: &str = "[roster]\nname = \"Hale's section\"\nside = \"british\"\n\n[[figure]]\nname = \"Sergeant Hale\"\nrank = \"sergeant\"\nweapon = \"Martini-Henry rifle\"\nexperience = 6\nedge = \"red\"\n\n[[figure]]\nname = \"Private Bell\"\nrank = \"private\"\nweapon = \"Martini-Henry rifle\"\nexperience = 3\n";

    fn figure(id: u32, edge: EdgeColour) -> TrackedFigure {
        TrackedFigure {
            id: TrackId(id),
            center_in_table: Point2::new(1.0, 2.0),
            facing_deg: None,
            edge,
            base: BaseKind::Foot,
            state: FigureState::OnTable,
            seen: true,
            ambiguous_with: None,
        }
    }

    fn roster() -> Roster {
        Roster::from_source(&SourceFile::from_text("r.toml", GOOD)).unwrap()
    }

    #[test]
    fn a_good_roster_loads() {
        let r = roster();
        assert_eq!(r.side, "british");
        assert_eq!(r.figures.len(), 2);
        assert_eq!(
            r.entry("Sergeant Hale").unwrap().edge,
            Some(EdgeColour::Red)
        );
        assert_eq!(r.entry("Private Bell").unwrap().experience, 3);
    }

    #[test]
    fn every_problem_names_its_line_and_field() {
        let text = "[roster]\nside = \" \"\n\n[[figure]]\nname = \"Hale\"\nrank = \"\"\nweapon = \"rifle\"\nexperience = 11\nedge = \"purple\"\n\n[[figure]]\nname = \"Hale\"\nrank = \"private\"\nweapon = \"rifle\"\nexperience = 0\n";
        let err = Roster::from_source(&SourceFile::from_text("bad.toml", text)).unwrap_err();
        let got: Vec<_> = err
            .problems
            .iter()
            .map(|p| (p.field.as_str(), p.line))
            .collect();
        assert_eq!(
            got,
            [
                ("roster.side", Some(2)),
                ("figure[0].rank", Some(6)),
                ("figure[0].experience", Some(8)),
                ("figure[0].edge", Some(9)),
                ("figure[1].name", Some(12)),
                ("figure[1].experience", Some(15)),
            ]
        );
        assert!(err.to_string().contains("bad.toml:9"), "{err}");
    }

    #[test]
    fn unknown_fields_and_missing_fields_are_errors() {
        let text =
            "[roster]\nside = \"x\"\n\n[[figure]]\nname = \"A\"\nrank = \"r\"\nexperience = 2\n";
        let err = Roster::from_source(&SourceFile::from_text("m.toml", text)).unwrap_err();
        assert_eq!(err.problems[0].field, "weapon", "{err}");
        let text = "[roster]\nside = \"x\"\ncolour = 1\n";
        let err = Roster::from_source(&SourceFile::from_text("u.toml", text)).unwrap_err();
        assert_eq!(err.problems[0].line, Some(3), "{err}");
    }

    #[test]
    fn binding_is_once_per_figure_and_per_man_and_checks_the_edge() {
        let r = roster();
        let mut b = Bindings::default();
        b.bind(&figure(4, EdgeColour::Red), &r, "Sergeant Hale")
            .unwrap();
        assert!(matches!(
            b.bind(&figure(4, EdgeColour::Red), &r, "Private Bell"),
            Err(RosterError::FigureAlreadyBound { .. })
        ));
        assert!(matches!(
            b.bind(&figure(5, EdgeColour::Red), &r, "Sergeant Hale"),
            Err(RosterError::EntryAlreadyBound { .. })
        ));
        assert!(matches!(
            b.bind(&figure(6, EdgeColour::Red), &r, "Nobody"),
            Err(RosterError::NoSuchEntry { .. })
        ));
        // Bell's roster line gives no edge: any figure will do.
        b.bind(&figure(7, EdgeColour::White), &r, "Private Bell")
            .unwrap();
        let mut other = Bindings::default();
        assert!(matches!(
            other.bind(&figure(8, EdgeColour::Green), &r, "Sergeant Hale"),
            Err(RosterError::EdgeMismatch { .. })
        ));
        assert_eq!(b.get(TrackId(4)).unwrap().entry.name, "Sergeant Hale");
        assert!(b.unbind(TrackId(4)).is_some());
        assert!(b.get(TrackId(4)).is_none());
    }
}

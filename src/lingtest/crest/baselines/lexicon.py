"""Word lists of the CheckList recipes: first names by sex, last names, cities and countries (most common
first, as CheckList's ``names.json`` and ``lexicons/basic.json`` order theirs), and contractions in the
Penn-Treebank token form a coreference corpus uses (*is n't*, *he 's*).

CheckList's own lists ship in its package, which does not import offline (``pattern`` downloads NLTK data at
import); these are short stand-ins of the same kind: a few dozen common US first and last names, large US
cities and countries.
"""

from __future__ import annotations

MEN = (
    "James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas", "Charles",
    "Christopher", "Daniel", "Matthew", "Anthony", "Mark", "Donald", "Steven", "Paul", "Andrew", "Joshua",
    "Kenneth", "Kevin", "Brian", "George", "Timothy", "Ronald", "Edward", "Jason", "Jeffrey", "Ryan",
    "Jacob", "Gary", "Nicholas", "Eric", "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon",
    "Benjamin", "Samuel", "Gregory", "Frank", "Alexander", "Raymond", "Patrick", "Jack", "Dennis", "Jerry",
)
WOMEN = (
    "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen",
    "Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle",
    "Carol", "Amanda", "Dorothy", "Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia",
    "Kathleen", "Amy", "Angela", "Shirley", "Anna", "Brenda", "Pamela", "Emma", "Nicole", "Helen",
    "Samantha", "Katherine", "Christine", "Debra", "Rachel", "Carolyn", "Janet", "Catherine", "Maria", "Heather",
)
LAST = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
    "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
    "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
    "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
)
CITIES = (
    "New York", "Los Angeles", "Chicago", "Houston", "Philadelphia", "Phoenix", "San Antonio", "San Diego",
    "Dallas", "San Jose", "Austin", "Indianapolis", "Jacksonville", "San Francisco", "Columbus", "Charlotte",
    "Fort Worth", "Detroit", "El Paso", "Memphis", "Seattle", "Denver", "Washington", "Boston", "Nashville",
    "Baltimore", "Oklahoma City", "Louisville", "Portland", "Las Vegas", "Milwaukee", "Albuquerque", "Tucson",
    "Fresno", "Sacramento", "Long Beach", "Kansas City", "Mesa", "Atlanta", "Miami", "London", "Paris",
    "Berlin", "Madrid", "Rome", "Toronto", "Sydney", "Tokyo", "Beijing", "Moscow",
)
COUNTRIES = (
    "China", "India", "United States", "Indonesia", "Pakistan", "Brazil", "Nigeria", "Bangladesh", "Russia",
    "Japan", "Mexico", "Philippines", "Vietnam", "Ethiopia", "Egypt", "Germany", "Iran", "Turkey", "Congo",
    "Thailand", "France", "United Kingdom", "Italy", "South Africa", "Tanzania", "Myanmar", "Kenya",
    "South Korea", "Colombia", "Spain", "Argentina", "Algeria", "Sudan", "Ukraine", "Uganda", "Iraq",
    "Poland", "Canada", "Morocco", "Afghanistan", "Peru", "Malaysia", "Venezuela", "Nepal", "Ghana",
    "Australia", "Greece", "Sweden", "Israel", "Chile",
)

#: auxiliaries whose *not* contracts to *n't* as its own token (``is not`` -> ``is n't``); *can*, *will* and
#: *shall* change their own form (*ca n't*, *wo n't*, *sha n't*) and are in :data:`IRREGULAR_NEGATIONS`
NOT_AUXILIARIES = frozenset({
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "could", "should", "would",
    "might", "must", "need", "ought",
})
#: auxiliary -> its form before *n't* (PTB: ``won't`` = ``wo n't``)
IRREGULAR_NEGATIONS = {"will": "wo", "shall": "sha"}

#: full form -> contracted token, after the words that take it (CheckList's ``contract`` pairs, *he 's* for
#: *he is*, ...); *'s* and *'d* read only as *is* and *would* after these pronouns
CONTRACT_AFTER = {
    "is": ("'s", frozenset({"he", "she", "it", "that", "there", "what", "when", "where", "who", "how", "why"})),
    "am": ("'m", frozenset({"i"})),
    "are": ("'re", frozenset({"you", "we", "they", "what"})),
    "will": ("'ll", frozenset({"i", "it", "she", "he", "they", "we", "you", "who"})),
    "would": ("'d", frozenset({"i", "it", "she", "he", "that", "there", "they", "we", "you"})),
    "have": ("'ve", frozenset({"i", "you", "we", "they", "who", "could", "should", "would", "might", "must"})),
}
#: contracted token -> full form, after the same words (CheckList's ``expand_contractions``)
EXPAND_AFTER = {short: (full, after) for full, (short, after) in CONTRACT_AFTER.items()}

"""Fine types near_miss can check: countries, US states and nationalities as written in English
news (spaCy's GPE and NORP labels do not tell a country from a city or a party from a nation)."""

from __future__ import annotations

COUNTRIES = frozenset(
    """Afghanistan Albania Algeria Angola Argentina Armenia Australia Austria Azerbaijan Bahrain
    Bangladesh Belarus Belgium Bolivia Bosnia Brazil Britain Bulgaria Burma Cambodia Cameroon Canada
    Chad Chile China Colombia Congo Croatia Cuba Cyprus Denmark Ecuador Egypt England Eritrea Estonia
    Ethiopia Finland France Georgia Germany Ghana Greece Guatemala Haiti Honduras Hungary Iceland India
    Indonesia Iran Iraq Ireland Israel Italy Jamaica Japan Jordan Kazakhstan Kenya Kosovo Kuwait
    Kyrgyzstan Laos Latvia Lebanon Liberia Libya Lithuania Luxembourg Macedonia Madagascar Malawi
    Malaysia Mali Malta Mauritania Mexico Moldova Mongolia Montenegro Morocco Mozambique Myanmar Namibia
    Nepal Netherlands Nicaragua Niger Nigeria Norway Oman Pakistan Palestine Panama Paraguay Peru
    Philippines Poland Portugal Qatar Romania Russia Rwanda Scotland Senegal Serbia Singapore Slovakia
    Slovenia Somalia Spain Sudan Sweden Switzerland Syria Taiwan Tajikistan Tanzania Thailand Tibet
    Tunisia Turkey Turkmenistan Uganda Ukraine Uruguay Uzbekistan Venezuela Vietnam Wales Yemen Zambia
    Zimbabwe America U.S. US USA UK U.K.""".split()
) | {
    "South Africa",
    "South Korea",
    "North Korea",
    "New Zealand",
    "Saudi Arabia",
    "Sri Lanka",
    "Sierra Leone",
    "United States",
    "United Kingdom",
    "Ivory Coast",
    "Costa Rica",
    "El Salvador",
    "Czech Republic",
    "Dominican Republic",
    "United Arab Emirates",
    "South Sudan",
    "Papua New Guinea",
    "Great Britain",
}

US_STATES = frozenset(
    """Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Hawaii Idaho
    Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan Minnesota
    Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania Tennessee Texas Utah
    Vermont Virginia Wisconsin Wyoming""".split()
) | {
    "New Hampshire",
    "New Jersey",
    "New Mexico",
    "New York State",
    "North Carolina",
    "North Dakota",
    "Rhode Island",
    "South Carolina",
    "South Dakota",
    "West Virginia",
}

NATIONALITIES = frozenset(
    """Afghan Albanian Algerian American Argentine Argentinian Armenian Australian Austrian Bangladeshi
    Belgian Bolivian Bosnian Brazilian British Bulgarian Burmese Cambodian Canadian Chilean Chinese
    Colombian Croatian Cuban Czech Danish Dutch Ecuadorian Egyptian English Eritrean Estonian Ethiopian
    Filipino Finnish French Georgian German Ghanaian Greek Haitian Hungarian Icelandic Indian Indonesian
    Iranian Iraqi Irish Israeli Italian Jamaican Japanese Jordanian Kenyan Korean Kuwaiti Latvian
    Lebanese Liberian Libyan Lithuanian Malaysian Malian Mexican Moldovan Mongolian Moroccan Nepalese
    Nigerian Norwegian Pakistani Palestinian Peruvian Polish Portuguese Qatari Romanian Russian Rwandan
    Saudi Scottish Senegalese Serbian Singaporean Slovak Slovenian Somali Spanish Sudanese Swedish Swiss
    Syrian Taiwanese Thai Tibetan Tunisian Turkish Ugandan Ukrainian Uruguayan Uzbek Venezuelan
    Vietnamese Welsh Yemeni Zambian Zimbabwean""".split()
)

CITIES = frozenset(
    """Amsterdam Ankara Athens Atlanta Baghdad Baltimore Bangkok Barcelona Basra Beijing Beirut Belfast
    Berlin Bombay Boston Brussels Budapest Cairo Calcutta Chicago Copenhagen Dallas Damascus Delhi
    Denver Detroit Dhaka Dubai Dublin Edinburgh Falluja Fallujah Gaza Geneva Glasgow Hamburg Havana
    Houston Islamabad Istanbul Jakarta Jerusalem Johannesburg Kabul Karachi Khartoum Kiev Kyiv Lagos
    Lahore Lisbon Liverpool London Madrid Manchester Manila Melbourne Miami Milan Minneapolis Montreal
    Moscow Mosul Mumbai Munich Nairobi Naples Oslo Ottawa Paris Philadelphia Phoenix Pittsburgh Prague
    Pyongyang Riyadh Rome Seattle Seoul Shanghai Singapore Stockholm Sydney Tehran Tokyo Toronto Tripoli
    Vancouver Vienna Warsaw Washington Zurich""".split()
) | {
    "Los Angeles",
    "New York",
    "San Francisco",
    "San Diego",
    "Hong Kong",
    "New Delhi",
    "Tel Aviv",
    "Mexico City",
    "Buenos Aires",
    "Cape Town",
    "Rio de Janeiro",
    "Sao Paulo",
    "Kuala Lumpur",
    "New Orleans",
    "Las Vegas",
    "St. Louis",
    "Salt Lake City",
    "Kansas City",
    "Abu Dhabi",
    "Addis Ababa",
}

NATIONALITIES = NATIONALITIES | {
    "South Korean",
    "North Korean",
    "South African",
    "New Zealander",
    "Philippine",
}
# Peoples of a region or without a state ("Chechen" is no nationality: a Chechen prison is a Russian
# one): replaced only by each other.
PEOPLES = frozenset({"Kurdish", "Kurds", "Chechen", "Chechens", "Balinese", "Tibetan", "Tibetans", "Basque", "Catalan"})
PEOPLES |= {"Uighur", "Uighurs", "Uyghur", "Uyghurs", "Kashmiri", "Kashmiris", "Tamil", "Tamils", "Pashtun", "Pashtuns"}
# Nationals as a plural noun ("Americans", "Israelis").
NATIONALS = frozenset(
    """Afghans Americans Australians Brazilians Britons Canadians Chinese Cubans Egyptians Filipinos
    French Germans Greeks Indians Iranians Iraqis Irish Israelis Italians Japanese Jordanians Kenyans Koreans
    Lebanese Libyans Mexicans Nigerians Pakistanis Palestinians Poles Russians Saudis Somalis Spaniards
    Sudanese Swedes Syrians Turks Ukrainians Yemenis""".split()
)
REGIONAL = frozenset(
    {"Asian", "European", "African", "Arab", "Latin American", "Western", "Middle Eastern", "Scandinavian", "Caribbean"}
)
PARTY_MEMBERS = frozenset(
    {"Republicans", "Democrats", "Republican", "Democrat", "Democratic", "Conservative", "Labour", "Tories", "Tory"}
)

# Organisations of a kind spaCy's ORG does not tell apart, by kind.
ORGANISATIONS = {
    **dict.fromkeys(
        [
            "UN",
            "U.N.",
            "EU",
            "NATO",
            "IAEA",
            "WHO",
            "IMF",
            "World Bank",
            "OPEC",
            "WTO",
            "Red Cross",
            "Interpol",
            "African Union",
            "Arab League",
        ],
        "international_body",
    ),
    **dict.fromkeys(
        [
            "FBI",
            "CIA",
            "FDA",
            "FTC",
            "SEC",
            "NASA",
            "EPA",
            "FAA",
            "Pentagon",
            "Treasury",
            "Fed",
            "Federal Reserve",
            "US Federal Reserve",
            "Justice Department",
            "State Department",
            "NSA",
            "IRS",
            "Homeland Security",
        ],
        "us_agency",
    ),
    # "in Congress" but "in the Senate": kept apart so the article still fits.
    **dict.fromkeys(["Senate", "House", "Knesset", "Duma", "Bundestag"], "legislature"),
    **dict.fromkeys(
        [
            "Hamas",
            "Taliban",
            "Hezbollah",
            "Hizbullah",
            "al-Qaida",
            "al-Qaeda",
            "Al Qaeda",
            "ISIS",
            "Boko Haram",
            "FARC",
            "MILF",
            "PKK",
        ],
        "armed_group",
    ),
    **dict.fromkeys(
        [
            "Microsoft",
            "Google",
            "Apple",
            "Amazon",
            "Boeing",
            "IBM",
            "Intel",
            "Oracle",
            "PeopleSoft",
            "Cisco",
            "Yahoo",
            "Facebook",
            "Twitter",
            "Sony",
            "Nokia",
            "Samsung",
            "Toyota",
            "Ford",
            "General Motors",
            "GM",
            "Merrill Lynch",
            "Coca Cola",
            "Starbucks",
            "Walmart",
            "Wal-Mart",
            "AOL",
            "Dell",
            "Hewlett-Packard",
            "HP",
            "Motorola",
            "Airbus",
            "Exxon",
            "BP",
            "Shell",
            "Pfizer",
            "Citigroup",
            "Goldman Sachs",
            "JPMorgan",
            "Verizon",
            "AT&T",
            "Disney",
            "Netflix",
            "Corel",
            "SCO",
            "Sun Microsystems",
            "Novell",
            "Red Hat",
        ],
        "company",
    ),
}

# Persons long dead or of another age: as a near miss in a news sentence they make it impossible.
HISTORICAL = frozenset(
    {
        "Hitler",
        "Adolf Hitler",
        "Stalin",
        "Joseph Stalin",
        "Lenin",
        "Mao",
        "Mao Zedong",
        "Napoleon",
        "Lincoln",
        "Abraham Lincoln",
        "Churchill",
        "Winston Churchill",
        "Gandhi",
        "Mahatma Gandhi",
        "Jesus",
        "Jesus Christ",
        "Moses",
        "Muhammad",
        "Shakespeare",
        "William Shakespeare",
        "Karl Marx",
        "Marx",
        "Martin Luther King",
        "John F. Kennedy",
        "JFK",
        "George Washington",
        "Elvis",
        "Elvis Presley",
        "Einstein",
        "Albert Einstein",
        "Nelson Mandela",
        "Mandela",
        "Saddam",
        "Saddam Hussein",
        "Osama bin Laden",
        "Bin Laden",
        "Reagan",
        "Ronald Reagan",
        "Salvador Dali",
        "Picasso",
        "Mozart",
        "Beethoven",
        "Columbus",
        "Darwin",
    }
)
# Names of one thing: never a near miss of each other.
ALIASES = [
    {"Fed", "Federal Reserve", "US Federal Reserve"},
    {"UN", "U.N."},
    {"US", "U.S.", "USA", "America", "United States"},
    {"UK", "U.K.", "Britain", "Great Britain", "United Kingdom", "England"},
    {"GM", "General Motors"},
    {"HP", "Hewlett-Packard"},
    {"Wal-Mart", "Walmart"},
    {"al-Qaida", "al-Qaeda", "Al Qaeda"},
    {"Hezbollah", "Hizbullah"},
    {"Burma", "Myanmar"},
    {"Kiev", "Kyiv"},
    {"Bombay", "Mumbai"},
    {"Calcutta", "Kolkata"},
    {"Falluja", "Fallujah"},
    {"American", "Americans"},
    {"British", "Britons", "English"},
]


def same_thing(a: str, b: str) -> bool:
    """Two names of one thing (Fed and US Federal Reserve)."""
    return any(a in group and b in group for group in ALIASES)

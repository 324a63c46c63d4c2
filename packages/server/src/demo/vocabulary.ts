import type { Random } from './random'

// What the demo data is made of: the markets with their names, phones and languages, the bike
// models, feedback texts in five languages, replies and the service desk's names.

export type Lang = 'en' | 'de' | 'nl' | 'fr' | 'zh'
/** [given or family name, its romanization for the email] */
export type Name = string | readonly [string, string]

export interface NameGroup {
  male: readonly Name[]
  female: readonly Name[]
  last: readonly Name[]
}

const NL: NameGroup = {
  male: ['Daan', 'Sem', 'Lucas', 'Levi', 'Finn', 'Milan', 'Bram', 'Thijs', 'Ruben', 'Jesse', 'Lars', 'Stijn', 'Pieter', 'Jeroen', 'Martijn', 'Sander', 'Wouter', 'Hendrik', 'Kees', 'Joost'],
  female: ['Emma', 'Julia', 'Sophie', 'Tess', 'Anna', 'Fleur', 'Lotte', 'Sanne', 'Eva', 'Lieke', 'Femke', 'Iris', 'Anouk', 'Marieke', 'Ingrid', 'Els', 'Annemieke', 'Noor', 'Roos', 'Mila'],
  last: ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters', 'Hendriks', 'van Leeuwen', 'Dekker', 'Brouwer', 'de Wit', 'Dijkstra', 'Smits', 'de Graaf', 'van der Meer', 'Kok', 'Jacobs', 'Vermeulen', 'van den Heuvel', 'Verhoeven'],
}
const FR: NameGroup = {
  male: ['Lucas', 'Hugo', 'Louis', 'Gabriel', 'Arthur', 'Jules', 'Léo', 'Raphaël', 'Adam', 'Nathan', 'Thomas', 'Nicolas', 'Julien', 'Mathieu', 'Antoine', 'Pierre', 'Philippe', 'François', 'Olivier', 'Sébastien'],
  female: ['Emma', 'Jade', 'Louise', 'Alice', 'Chloé', 'Léa', 'Manon', 'Camille', 'Inès', 'Lina', 'Juliette', 'Sarah', 'Marie', 'Claire', 'Élodie', 'Céline', 'Nathalie', 'Isabelle', 'Aurélie', 'Margaux'],
  last: ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefebvre', 'Michel', 'Garcia', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard', 'André', 'Lefèvre', 'Mercier', 'Dupont', 'Lambert', 'Bonnet', 'François', 'Martinez'],
}
const BE_LAST = ['Peeters', 'Janssens', 'Maes', 'Jacobs', 'Mertens', 'Willems', 'Claes', 'Goossens', 'Wouters', 'De Smet', 'Dubois', 'Lambert', 'Dupont', 'Vermeulen', 'Van den Broeck', 'Hermans', 'Desmet', 'Aerts', 'Lemaire', 'Renard']
const DE: NameGroup = {
  male: ['Lukas', 'Leon', 'Finn', 'Jonas', 'Paul', 'Felix', 'Maximilian', 'Elias', 'Noah', 'Tim', 'Jan', 'Tobias', 'Michael', 'Thomas', 'Andreas', 'Stefan', 'Markus', 'Florian', 'Matthias', 'Jürgen'],
  female: ['Mia', 'Hannah', 'Emma', 'Lea', 'Lena', 'Anna', 'Marie', 'Sophie', 'Laura', 'Julia', 'Sarah', 'Katharina', 'Sabine', 'Petra', 'Claudia', 'Nicole', 'Jana', 'Franziska', 'Johanna', 'Ute'],
  last: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Schäfer', 'Koch', 'Bauer', 'Richter', 'Klein', 'Wolf', 'Schröder', 'Neumann', 'Schwarz', 'Zimmermann', 'Braun', 'Krüger', 'Hofmann', 'Hartmann', 'Lange', 'Schmitt', 'Werner', 'Krause', 'Meier', 'Lehmann'],
}
const AT_LAST = ['Gruber', 'Huber', 'Bauer', 'Wagner', 'Pichler', 'Steiner', 'Moser', 'Mayer', 'Hofer', 'Leitner', 'Berger', 'Fuchs', 'Eder', 'Fischer', 'Schmid']
const CH_LAST = ['Müller', 'Meier', 'Schmid', 'Keller', 'Weber', 'Huber', 'Meyer', 'Schneider', 'Steiner', 'Fischer', 'Brunner', 'Baumann', 'Gerber', 'Frei', 'Moser']
const EN: NameGroup = {
  male: ['Oliver', 'George', 'Harry', 'Jack', 'Jacob', 'Noah', 'Charlie', 'Thomas', 'Oscar', 'William', 'James', 'Daniel', 'David', 'Michael', 'Matthew', 'Andrew', 'Richard', 'Mark', 'Liam', 'Sean'],
  female: ['Olivia', 'Amelia', 'Isla', 'Ava', 'Emily', 'Sophie', 'Grace', 'Lily', 'Freya', 'Charlotte', 'Emma', 'Hannah', 'Sarah', 'Laura', 'Rachel', 'Rebecca', 'Claire', 'Helen', 'Siobhan', 'Niamh'],
  last: ['Smith', 'Jones', 'Williams', 'Taylor', 'Brown', 'Davies', 'Evans', 'Wilson', 'Thomas', 'Johnson', 'Roberts', 'Robinson', 'Thompson', 'Wright', 'Walker', 'White', 'Edwards', 'Hughes', 'Green', 'Hall', 'Wood', 'Harris', 'Clarke', 'Jackson', 'Murphy', 'Kelly', "O'Brien", 'Byrne', 'Walsh', 'Ryan'],
}
const NORDIC: NameGroup = {
  male: ['William', 'Noah', 'Oscar', 'Lucas', 'Carl', 'Emil', 'Magnus', 'Frederik', 'Mads', 'Anders', 'Lars', 'Henrik', 'Søren', 'Jens', 'Erik', 'Nils', 'Olav'],
  female: ['Alma', 'Ida', 'Clara', 'Freja', 'Ella', 'Sofie', 'Emma', 'Anna', 'Karen', 'Mette', 'Line', 'Ingrid', 'Astrid', 'Sigrid', 'Maja', 'Elsa'],
  last: ['Nielsen', 'Jensen', 'Hansen', 'Pedersen', 'Andersen', 'Christensen', 'Larsen', 'Sørensen', 'Rasmussen', 'Jørgensen', 'Petersen', 'Madsen', 'Kristensen', 'Olsen', 'Thomsen'],
}
const SE_LAST = ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson']
const NO_LAST = ['Hansen', 'Johansen', 'Olsen', 'Larsen', 'Andersen', 'Pedersen', 'Nilsen', 'Kristiansen', 'Jensen', 'Karlsen']
const IT: NameGroup = {
  male: ['Leonardo', 'Francesco', 'Alessandro', 'Lorenzo', 'Matteo', 'Andrea', 'Marco', 'Luca', 'Giuseppe', 'Giovanni'],
  female: ['Sofia', 'Giulia', 'Aurora', 'Alice', 'Ginevra', 'Chiara', 'Francesca', 'Sara', 'Elena', 'Valentina'],
  last: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco'],
}
const ES: NameGroup = {
  male: ['Hugo', 'Martín', 'Lucas', 'Mateo', 'Pablo', 'Daniel', 'Alejandro', 'Javier', 'Carlos', 'David'],
  female: ['Lucía', 'Sofía', 'Martina', 'María', 'Paula', 'Julia', 'Laura', 'Carmen', 'Elena', 'Ana'],
  last: ['García', 'Fernández', 'González', 'Rodríguez', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Martín'],
}
const US_LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore']
const CN: NameGroup = {
  male: [['伟', 'Wei'], ['强', 'Qiang'], ['磊', 'Lei'], ['军', 'Jun'], ['洋', 'Yang'], ['勇', 'Yong'], ['杰', 'Jie'], ['涛', 'Tao'], ['浩然', 'Haoran'], ['宇轩', 'Yuxuan'], ['子豪', 'Zihao'], ['建华', 'Jianhua'], ['志强', 'Zhiqiang'], ['明', 'Ming'], ['俊杰', 'Junjie'], ['鹏', 'Peng']],
  female: [['芳', 'Fang'], ['娜', 'Na'], ['敏', 'Min'], ['静', 'Jing'], ['丽', 'Li'], ['艳', 'Yan'], ['婷', 'Ting'], ['雪', 'Xue'], ['欣怡', 'Xinyi'], ['梓涵', 'Zihan'], ['诗涵', 'Shihan'], ['雨萱', 'Yuxuan'], ['佳怡', 'Jiayi'], ['晓燕', 'Xiaoyan'], ['丹', 'Dan'], ['慧', 'Hui']],
  last: [['王', 'Wang'], ['李', 'Li'], ['张', 'Zhang'], ['刘', 'Liu'], ['陈', 'Chen'], ['杨', 'Yang'], ['黄', 'Huang'], ['赵', 'Zhao'], ['吴', 'Wu'], ['周', 'Zhou'], ['徐', 'Xu'], ['孙', 'Sun'], ['马', 'Ma'], ['朱', 'Zhu'], ['胡', 'Hu'], ['郭', 'Guo'], ['何', 'He'], ['林', 'Lin'], ['罗', 'Luo'], ['高', 'Gao']],
}
const TW: NameGroup = {
  male: [['家豪', 'Chia-hao'], ['志明', 'Chih-ming'], ['俊傑', 'Chun-chieh'], ['建宏', 'Chien-hung'], ['冠宇', 'Kuan-yu'], ['承恩', 'Cheng-en'], ['宗翰', 'Tsung-han'], ['柏翰', 'Po-han'], ['信宏', 'Hsin-hung'], ['彥廷', 'Yen-ting']],
  female: [['怡君', 'Yi-chun'], ['雅婷', 'Ya-ting'], ['淑芬', 'Shu-fen'], ['佳穎', 'Chia-ying'], ['欣妤', 'Hsin-yu'], ['詩涵', 'Shih-han'], ['宜蓁', 'Yi-chen'], ['美玲', 'Mei-ling'], ['筱涵', 'Hsiao-han'], ['心怡', 'Hsin-yi']],
  last: [['陳', 'Chen'], ['林', 'Lin'], ['黃', 'Huang'], ['張', 'Chang'], ['李', 'Lee'], ['王', 'Wang'], ['吳', 'Wu'], ['劉', 'Liu'], ['蔡', 'Tsai'], ['楊', 'Yang'], ['許', 'Hsu'], ['鄭', 'Cheng'], ['謝', 'Hsieh'], ['郭', 'Kuo']],
}

/** How a country's clocks run: standard offset from UTC in hours and its summer-time rule. */
type Dst = 'eu' | 'us' | 'none'

export interface Market {
  /** ISO code, as sys_country.code. */
  code: string
  /** Share of members (the company's markets). */
  weight: number
  /** A member's language and the names they may have (drawn together: a Flemish name writes Dutch). */
  people: (r: Random) => readonly [Lang, NameGroup]
  offset: number
  dst: Dst
  /** How much the seasons change riding (1 = north-west Europe). */
  seasons: number
  /** Mean heights (cm) of men and women. */
  height: [number, number]
  phone: (r: Random) => string
  /** How much this market likes each category (1 = as everywhere). */
  likes?: Partial<Record<Category, number>>
}

const withLast = (group: NameGroup, last: readonly Name[]): NameGroup => ({ ...group, last })
const one = (lang: Lang, names: NameGroup) => () => [lang, names] as const
const either = (a: readonly [Lang, NameGroup], b: readonly [Lang, NameGroup], shareOfA: number) => (r: Random) => (r.chance(shareOfA) ? a : b)
const d = (r: Random, n: number) => r.digits(n)

export const MARKETS: readonly Market[] = [
  { code: 'NL', weight: 24, people: one('nl', NL), offset: 1, dst: 'eu', seasons: 1, height: [183, 169], phone: (r) => `+31 6 ${d(r, 8)}`, likes: { cargo: 1.7, city: 1.2 } },
  { code: 'DE', weight: 20, people: one('de', DE), offset: 1, dst: 'eu', seasons: 1.05, height: [180, 166], phone: (r) => `+49 1${r.pick(['51', '52', '57', '60', '62', '70', '71', '72', '76', '79'])} ${d(r, 7)}`, likes: { trekking: 1.4, mountain: 1.5 } },
  { code: 'BE', weight: 8, people: either(['nl', withLast(NL, BE_LAST)], ['fr', withLast(FR, BE_LAST)], 0.6), offset: 1, dst: 'eu', seasons: 1, height: [179, 165], phone: (r) => `+32 4${d(r, 2)} ${d(r, 2)} ${d(r, 2)} ${d(r, 2)}`, likes: { cargo: 1.4, city: 1.2 } },
  { code: 'FR', weight: 7, people: one('fr', FR), offset: 1, dst: 'eu', seasons: 0.9, height: [176, 163], phone: (r) => `+33 ${r.pick(['6', '7'])} ${d(r, 2)} ${d(r, 2)} ${d(r, 2)} ${d(r, 2)}` },
  { code: 'GB', weight: 6, people: one('en', EN), offset: 0, dst: 'eu', seasons: 0.9, height: [176, 163], phone: (r) => `+44 7${d(r, 3)} ${d(r, 6)}` },
  { code: 'DK', weight: 4, people: one('en', NORDIC), offset: 1, dst: 'eu', seasons: 1.1, height: [181, 168], phone: (r) => `+45 ${d(r, 2)} ${d(r, 2)} ${d(r, 2)} ${d(r, 2)}`, likes: { cargo: 1.8 } },
  { code: 'AT', weight: 3, people: one('de', withLast(DE, AT_LAST)), offset: 1, dst: 'eu', seasons: 1.1, height: [179, 166], phone: (r) => `+43 6${r.pick(['64', '76', '50', '60'])} ${d(r, 7)}`, likes: { mountain: 1.8, trekking: 1.3 } },
  { code: 'CH', weight: 3, people: either(['de', withLast(DE, CH_LAST)], ['fr', withLast(FR, CH_LAST)], 0.65), offset: 1, dst: 'eu', seasons: 1.1, height: [178, 165], phone: (r) => `+41 7${r.pick(['6', '7', '8', '9'])} ${d(r, 3)} ${d(r, 2)} ${d(r, 2)}`, likes: { mountain: 1.8, trekking: 1.3 } },
  { code: 'LU', weight: 1, people: either(['fr', FR], ['de', DE], 0.6), offset: 1, dst: 'eu', seasons: 1, height: [178, 165], phone: (r) => `+352 6${r.pick(['21', '61', '91'])} ${d(r, 3)} ${d(r, 3)}` },
  { code: 'SE', weight: 2, people: one('en', withLast(NORDIC, SE_LAST)), offset: 1, dst: 'eu', seasons: 1.2, height: [181, 167], phone: (r) => `+46 7${r.pick(['0', '2', '3', '6'])} ${d(r, 3)} ${d(r, 2)} ${d(r, 2)}` },
  { code: 'NO', weight: 2, people: one('en', withLast(NORDIC, NO_LAST)), offset: 1, dst: 'eu', seasons: 1.25, height: [181, 168], phone: (r) => `+47 4${d(r, 2)} ${d(r, 2)} ${d(r, 3)}` },
  { code: 'IE', weight: 1, people: one('en', EN), offset: 0, dst: 'eu', seasons: 0.8, height: [177, 164], phone: (r) => `+353 8${r.pick(['3', '5', '6', '7'])} ${d(r, 3)} ${d(r, 4)}` },
  { code: 'IT', weight: 2, people: one('en', IT), offset: 1, dst: 'eu', seasons: 0.8, height: [177, 163], phone: (r) => `+39 3${d(r, 2)} ${d(r, 3)} ${d(r, 4)}` },
  { code: 'ES', weight: 1, people: one('en', ES), offset: 1, dst: 'eu', seasons: 0.6, height: [175, 162], phone: (r) => `+34 6${d(r, 2)} ${d(r, 3)} ${d(r, 3)}` },
  { code: 'US', weight: 2, people: one('en', withLast(EN, US_LAST)), offset: -5, dst: 'us', seasons: 0.9, height: [176, 162], phone: (r) => `+1 ${r.pick(['212', '415', '206', '617', '512'])}-555-${d(r, 4)}`, likes: { mountain: 1.4 } },
  { code: 'CN', weight: 9, people: one('zh', CN), offset: 8, dst: 'none', seasons: 0.7, height: [172, 160], phone: (r) => `+86 1${r.pick(['35', '38', '39', '58', '86', '88'])} ${d(r, 4)} ${d(r, 4)}`, likes: { folding: 3, cargo: 0.2, mountain: 0.7 } },
  { code: 'TW', weight: 5, people: one('zh', TW), offset: 8, dst: 'none', seasons: 0.35, height: [172, 160], phone: (r) => `+886 9${d(r, 2)} ${d(r, 3)} ${d(r, 3)}`, likes: { folding: 2.5, cargo: 0.3 } },
]

/** The romanized form of a name (an email's local part). */
export function roman(name: Name): string {
  return typeof name === 'string' ? name : name[1]
}
export function written(name: Name): string {
  return typeof name === 'string' ? name : name[0]
}

/** Letters an email takes: accents dropped, ß ø æ spelled out, spaces and signs gone. */
export function emailPart(s: string): string {
  return s
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[æÆ]/g, 'ae')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
}

// ---- Bike models

export type Category = 'city' | 'trekking' | 'cargo' | 'folding' | 'mountain'

export interface ModelSpec {
  code: string
  name: string
  category: Category
  weight: number
  /** Days before the data's end the model came out: no bike of it is older. */
  launchedDaysAgo: number
  /** Kilometres on one charge (cycles = distance ÷ range). */
  rangeKm: number
  /** Typical average speed (km/h). */
  speed: number
  /** Share of bikes with a cadence sensor. */
  cadence: number
  colours: readonly [name: string, code: string, swatch: string, weight: number][]
  /** [name, code, frame from, to (cm), rider height from, to (cm)] */
  sizes: readonly [string, string, number, number, number, number][]
  /** What the app shows for it: a remark. */
  remark: string
}

export const MODELS: readonly ModelSpec[] = [
  {
    code: 'MET',
    name: 'Velo Metro',
    category: 'city',
    weight: 28,
    launchedDaysAgo: 1100,
    rangeKm: 70,
    speed: 19,
    cadence: 0.4,
    colours: [['Midnight Black', 'BLK', '#1F2937', 35], ['Pearl White', 'WHT', '#F3F4F6', 20], ['Sage Green', 'SGN', '#8A9A7B', 25], ['Dutch Blue', 'DBL', '#1E3A8A', 20]],
    sizes: [['S', 'S', 46, 49, 155, 170], ['M', 'M', 50, 54, 168, 182], ['L', 'L', 55, 58, 180, 196]],
    remark: 'Diamond-frame city bike, 250 W mid motor, 500 Wh battery',
  },
  {
    code: 'MST',
    name: 'Velo Metro Step',
    category: 'city',
    weight: 20,
    launchedDaysAgo: 950,
    rangeKm: 70,
    speed: 18,
    cadence: 0.3,
    colours: [['Cream', 'CRM', '#EFE6D2', 40], ['Dusty Rose', 'RSE', '#C9A3A0', 25], ['Slate Grey', 'SLT', '#5B6470', 35]],
    sizes: [['S', 'S', 44, 47, 150, 165], ['M', 'M', 48, 51, 162, 178], ['L', 'L', 52, 55, 175, 190]],
    remark: 'Step-through city bike, 250 W mid motor, 500 Wh battery',
  },
  {
    // Frame numbers use no I, O or Q (docs/frame-numbers.md).
    code: 'TRV',
    name: 'Velo Tour',
    category: 'trekking',
    weight: 20,
    launchedDaysAgo: 1100,
    rangeKm: 90,
    speed: 21,
    cadence: 0.9,
    colours: [['Graphite', 'GRA', '#374151', 45], ['Ocean Blue', 'OCB', '#0E7490', 35], ['Sand', 'SND', '#C2B280', 20]],
    sizes: [['S', 'S', 47, 50, 158, 170], ['M', 'M', 51, 54, 168, 180], ['L', 'L', 55, 58, 178, 190], ['XL', 'XL', 59, 62, 188, 205]],
    remark: 'Trekking bike with rack and lights, 625 Wh battery',
  },
  {
    code: 'HAU',
    name: 'Velo Haul',
    category: 'cargo',
    weight: 9,
    launchedDaysAgo: 700,
    rangeKm: 55,
    speed: 17,
    cadence: 0.8,
    colours: [['Forest Green', 'FGN', '#2F4F3A', 40], ['Matte Black', 'MBK', '#111827', 40], ['Ochre', 'OCH', '#CC8A2E', 20]],
    sizes: [['One size', 'ONE', 50, 50, 155, 195]],
    remark: 'Long-tail cargo bike for two children or 60 kg, 2 × 500 Wh',
  },
  {
    code: 'FLD',
    name: 'Velo Fold',
    category: 'folding',
    weight: 8,
    launchedDaysAgo: 600,
    rangeKm: 45,
    speed: 16.5,
    cadence: 0.2,
    colours: [['Silver', 'SLV', '#C0C5CC', 40], ['Coral Red', 'CRL', '#E4574C', 30], ['Black', 'BLK', '#1F2937', 30]],
    sizes: [['One size', 'ONE', 38, 38, 150, 195]],
    remark: '20-inch folding bike, 16 kg, 360 Wh battery',
  },
  {
    code: 'RDG',
    name: 'Velo Ridge',
    category: 'mountain',
    weight: 15,
    launchedDaysAgo: 1100,
    rangeKm: 60,
    speed: 18,
    cadence: 1,
    colours: [['Lava Orange', 'LVO', '#EA580C', 35], ['Stealth Black', 'STB', '#0B0F14', 45], ['Glacier Blue', 'GLB', '#7DD3FC', 20]],
    sizes: [['S', 'S', 38, 41, 155, 168], ['M', 'M', 42, 45, 167, 180], ['L', 'L', 46, 49, 179, 191], ['XL', 'XL', 50, 53, 189, 203]],
    remark: 'Full-suspension e-MTB, 85 Nm, 750 Wh battery',
  },
]

/** The pictures each model has per colour: [remark, kind]. */
export const PICTURES: readonly [string, 'side' | 'swatch'][] = [
  ['Side view', 'side'],
  ['Colour detail', 'swatch'],
]

/** [key, usage, language] of the app's static images. */
export const STATIC_IMAGES: readonly [string, string, string][] = [
  ['app.splash', 'App splash screen', 'en_US'],
  ['app.splash.zh', 'App splash screen', 'zh_CN'],
  ['onboarding.bind', 'Onboarding: bind your bike', 'en_US'],
  ['onboarding.bind.zh', 'Onboarding: bind your bike', 'zh_CN'],
  ['onboarding.rides', 'Onboarding: your rides', 'en_US'],
  ['bind.frameNumber', 'Where to find the frame number', 'en_US'],
  ['bind.frameNumber.de', 'Where to find the frame number', 'de_DE'],
  ['bind.frameNumber.nl', 'Where to find the frame number', 'nl_NL'],
  ['empty.bikes', 'Empty state: no bikes yet', 'en_US'],
  ['empty.rides', 'Empty state: no rides yet', 'en_US'],
]

export const REPLACEMENT_REASONS = [
  'Frame cracked at the chain stay; replaced under warranty',
  'Frame number label damaged and unreadable',
  'Frame bent in a collision; replaced under warranty',
  'Corrosion at the bottom bracket; frame replaced by the dealer',
  'Stolen bike recovered with a ground-off number; frame re-registered',
]

export const UNBIND_REASONS: readonly [detail: string, byStaff: boolean][] = [
  ['Unbound in the app: bike sold', false],
  ['Unbound in the app', false],
  ['Unbound by the service desk: ownership transfer', true],
  ['Unbound by the service desk: reported stolen', true],
]

// ---- Feedback

export type TagKey = 'battery' | 'motor' | 'app' | 'bluetooth' | 'comfort' | 'brakes' | 'delivery' | 'dealer' | 'display' | 'design'

/** The feedback tags, named in both languages (the tag has one name). */
export const TAGS: readonly [TagKey, string][] = [
  ['battery', 'Battery / 电池'],
  ['motor', 'Motor / 电机'],
  ['app', 'App / 应用'],
  ['bluetooth', 'Bluetooth / 蓝牙'],
  ['comfort', 'Comfort / 舒适度'],
  ['brakes', 'Brakes / 刹车'],
  ['delivery', 'Delivery / 配送'],
  ['dealer', 'Dealer service / 经销商服务'],
  ['display', 'Display / 仪表'],
  ['design', 'Design / 外观'],
]

export type Mood = 'good' | 'mixed' | 'bad'

export interface Template {
  mood: Mood
  tags: readonly TagKey[]
  /** The {km} it may mention: [from, to]. */
  km?: [number, number]
  text: Record<Lang, string>
}

export const TEMPLATES: readonly Template[] = [
  {
    mood: 'good',
    tags: ['battery'],
    km: [5, 22],
    text: {
      en: 'Love my {model}! I ride {km} km to work and back every day and the battery still has plenty left.',
      de: 'Ich liebe mein {model}! Ich fahre jeden Tag {km} km zur Arbeit und zurück, und der Akku hat immer noch genug Reserve.',
      nl: 'Ik ben dol op mijn {model}! Ik fiets elke dag {km} km naar mijn werk en terug en de accu heeft nog ruim over.',
      fr: "J'adore mon {model} ! Je fais {km} km aller-retour pour aller au travail chaque jour et la batterie tient largement.",
      zh: '非常喜欢我的 {model}！每天通勤往返 {km} 公里，电量还绰绰有余。',
    },
  },
  {
    mood: 'good',
    tags: ['app', 'bluetooth'],
    text: {
      en: 'The app works great. Unlocking with Bluetooth as I walk up to the bike is so convenient.',
      de: 'Die App funktioniert super. Das Entsperren per Bluetooth, sobald ich zum Rad komme, ist sehr praktisch.',
      nl: 'De app werkt prima. Ontgrendelen via Bluetooth als ik naar de fiets loop is erg handig.',
      fr: "L'application fonctionne très bien. Le déverrouillage par Bluetooth en arrivant au vélo est vraiment pratique.",
      zh: 'App 很好用，走到车旁就能用蓝牙解锁，非常方便。',
    },
  },
  {
    mood: 'good',
    tags: ['comfort'],
    text: {
      en: 'Very comfortable ride, even on cobblestones. Best purchase I made this year.',
      de: 'Sehr komfortabel, sogar auf Kopfsteinpflaster. Mein bester Kauf in diesem Jahr.',
      nl: 'Heel comfortabel, zelfs op kinderkopjes. Mijn beste aankoop van dit jaar.',
      fr: "Très confortable, même sur les pavés. Mon meilleur achat de l'année.",
      zh: '骑起来非常舒适，石板路也很平稳，是我今年买得最值的东西。',
    },
  },
  {
    mood: 'good',
    tags: ['motor'],
    text: {
      en: 'Smooth and quiet motor. The hills around here are no problem any more.',
      de: 'Der Motor läuft leise und gleichmäßig. Die Steigungen hier sind kein Problem mehr.',
      nl: 'Soepele en stille motor. De heuvels hier in de buurt zijn geen probleem meer.',
      fr: 'Moteur souple et silencieux. Les côtes du coin ne sont plus un problème.',
      zh: '电机平顺又安静，附近的坡路再也不是问题了。',
    },
  },
  {
    mood: 'good',
    tags: ['design'],
    text: {
      en: 'Beautiful design. People ask me about my {model} all the time.',
      de: 'Wunderschönes Design. Ich werde ständig auf mein {model} angesprochen.',
      nl: 'Prachtig ontwerp. Mensen vragen me steeds naar mijn {model}.',
      fr: 'Magnifique design. On me pose sans arrêt des questions sur mon {model}.',
      zh: '外观很漂亮，经常有人问我这辆 {model} 是在哪儿买的。',
    },
  },
  {
    mood: 'good',
    tags: ['delivery', 'dealer'],
    text: {
      en: 'Quick delivery, and the dealer set everything up perfectly and explained the app.',
      de: 'Schnelle Lieferung, und der Händler hat alles perfekt eingestellt und die App erklärt.',
      nl: 'Snelle levering, en de dealer heeft alles perfect afgesteld en de app uitgelegd.',
      fr: "Livraison rapide, et le revendeur a tout réglé parfaitement et m'a expliqué l'application.",
      zh: '发货很快，经销商把车调试得很好，还教我怎么用 App。',
    },
  },
  {
    mood: 'mixed',
    tags: ['battery'],
    text: {
      en: 'Good bike overall, but the range is noticeably shorter in the cold.',
      de: 'Insgesamt ein gutes Rad, aber bei Kälte ist die Reichweite deutlich geringer.',
      nl: 'Over het algemeen een goede fiets, maar bij kou is het bereik merkbaar kleiner.',
      fr: "Bon vélo dans l'ensemble, mais l'autonomie baisse nettement quand il fait froid.",
      zh: '整体不错，但天冷的时候续航明显缩短。',
    },
  },
  {
    mood: 'mixed',
    tags: ['app', 'bluetooth'],
    text: {
      en: 'The app sometimes takes a while to connect to the bike. Otherwise fine.',
      de: 'Die App braucht manchmal lange, bis sie sich mit dem Rad verbindet. Sonst alles gut.',
      nl: 'De app heeft soms even nodig om verbinding te maken met de fiets. Verder prima.',
      fr: "L'application met parfois du temps à se connecter au vélo. Sinon, rien à redire.",
      zh: 'App 有时候连接车辆要等很久，其他都还好。',
    },
  },
  {
    mood: 'mixed',
    tags: ['display'],
    text: {
      en: 'Nice ride, but the display is hard to read in bright sunlight.',
      de: 'Fährt sich gut, aber das Display ist bei Sonnenschein schwer abzulesen.',
      nl: 'Fietst lekker, maar het display is in fel zonlicht slecht leesbaar.',
      fr: "Agréable à rouler, mais l'écran est difficile à lire en plein soleil.",
      zh: '骑行体验不错，但阳光强的时候仪表看不清楚。',
    },
  },
  {
    mood: 'mixed',
    tags: ['brakes'],
    text: {
      en: 'The brakes squeak a bit in wet weather. Is that normal?',
      de: 'Die Bremsen quietschen bei Nässe etwas. Ist das normal?',
      nl: 'De remmen piepen een beetje bij nat weer. Is dat normaal?',
      fr: 'Les freins grincent un peu par temps de pluie. Est-ce normal ?',
      zh: '下雨天刹车有点异响，这正常吗？',
    },
  },
  {
    mood: 'bad',
    tags: ['bluetooth', 'app'],
    text: {
      en: 'The bike lost its Bluetooth connection three times this week and I could not unlock it.',
      de: 'Das Rad hat diese Woche dreimal die Bluetooth-Verbindung verloren und ich konnte es nicht entsperren.',
      nl: 'De fiets verloor deze week drie keer de Bluetooth-verbinding en ik kon hem niet ontgrendelen.',
      fr: "Le vélo a perdu la connexion Bluetooth trois fois cette semaine et je n'ai pas pu le déverrouiller.",
      zh: '这周车辆蓝牙断开了三次，根本解不了锁。',
    },
  },
  {
    mood: 'bad',
    tags: ['battery'],
    text: {
      en: 'The battery drops from 40% to 0% within a few kilometres. Please help.',
      de: 'Der Akku fällt innerhalb weniger Kilometer von 40 % auf 0 %. Bitte um Hilfe.',
      nl: 'De accu zakt binnen een paar kilometer van 40% naar 0%. Graag hulp.',
      fr: "La batterie passe de 40 % à 0 % en quelques kilomètres. Merci de m'aider.",
      zh: '电量几公里内就从 40% 掉到 0%，请帮忙处理。',
    },
  },
  {
    mood: 'bad',
    tags: ['delivery'],
    text: {
      en: 'Delivery took six weeks longer than promised and nobody told me why.',
      de: 'Die Lieferung hat sechs Wochen länger gedauert als versprochen, und niemand hat mir gesagt, warum.',
      nl: 'De levering duurde zes weken langer dan beloofd en niemand vertelde me waarom.',
      fr: "La livraison a pris six semaines de plus que prévu et personne ne m'a expliqué pourquoi.",
      zh: '比承诺的晚了六周才到货，也没人告诉我原因。',
    },
  },
  {
    mood: 'bad',
    tags: ['motor', 'dealer'],
    km: [300, 3000],
    text: {
      en: 'The motor has been clicking since {km} km and the dealer could not fix it.',
      de: 'Der Motor klickt seit {km} km, und der Händler konnte es nicht beheben.',
      nl: 'De motor tikt sinds {km} km en de dealer kon het niet verhelpen.',
      fr: "Le moteur fait un cliquetis depuis {km} km et le revendeur n'a pas réussi à le réparer.",
      zh: '骑到 {km} 公里后电机一直有咔哒声，经销商也没修好。',
    },
  },
  {
    mood: 'bad',
    tags: ['brakes', 'dealer'],
    text: {
      en: 'The rear brake has felt weak since the last service. Not safe like this.',
      de: 'Die Hinterradbremse greift seit der letzten Inspektion schlecht. So ist das nicht sicher.',
      nl: 'De achterrem pakt slecht sinds de laatste onderhoudsbeurt. Zo is het niet veilig.',
      fr: "Le frein arrière est faible depuis la dernière révision. Ce n'est pas sûr comme ça.",
      zh: '上次保养后后刹变软了，这样骑很不安全。',
    },
  },
]

export const REPLIES: Record<Mood, Record<Lang, readonly string[]>> = {
  good: {
    en: ['Thank you for your kind words! We are glad you enjoy riding your Velo.', 'Thanks a lot for the feedback. Happy riding!'],
    de: ['Vielen Dank für das Lob! Schön, dass Ihnen Ihr Velo so viel Freude macht.', 'Herzlichen Dank für Ihr Feedback. Allzeit gute Fahrt!'],
    nl: ['Bedankt voor je mooie woorden! Fijn dat je zo geniet van je Velo.', 'Dank je wel voor je feedback. Veel fietsplezier!'],
    fr: ['Merci pour vos gentils mots ! Nous sommes ravis que votre Velo vous plaise.', 'Merci beaucoup pour votre retour. Bonne route !'],
    zh: ['感谢您的认可！很高兴您喜欢您的 Velo。', '非常感谢您的反馈，祝您骑行愉快！'],
  },
  mixed: {
    en: ['Thank you for the feedback. We have passed it on to our product team.', 'Thanks for letting us know. A firmware update that improves this is on its way.'],
    de: ['Danke für Ihre Rückmeldung. Wir haben sie an unser Produktteam weitergegeben.', 'Danke für den Hinweis. Ein Firmware-Update, das dies verbessert, ist in Arbeit.'],
    nl: ['Bedankt voor je feedback. We hebben het doorgegeven aan ons productteam.', 'Bedankt voor je melding. Er komt binnenkort een firmware-update die dit verbetert.'],
    fr: ["Merci pour votre retour. Nous l'avons transmis à notre équipe produit.", "Merci de nous l'avoir signalé. Une mise à jour du firmware qui améliore ce point arrive bientôt."],
    zh: ['感谢您的反馈，我们已转给产品团队。', '感谢您告诉我们，改进这一问题的固件更新即将推出。'],
  },
  bad: {
    en: ['We are sorry to hear this. Our service team will contact you by email within one working day.', 'Sorry for the trouble. Please book a service appointment in the app; the repair is covered by your warranty.'],
    de: ['Das tut uns leid. Unser Serviceteam meldet sich innerhalb eines Werktags per E-Mail bei Ihnen.', 'Entschuldigen Sie die Unannehmlichkeiten. Bitte buchen Sie in der App einen Servicetermin; die Reparatur ist durch Ihre Garantie abgedeckt.'],
    nl: ['Wat vervelend om te horen. Ons serviceteam neemt binnen één werkdag per e-mail contact met je op.', 'Sorry voor het ongemak. Plan via de app een serviceafspraak in; de reparatie valt onder je garantie.'],
    fr: ["Nous sommes désolés de l'apprendre. Notre service client vous contactera par e-mail sous un jour ouvré.", "Désolés pour ce désagrément. Prenez rendez-vous dans l'application ; la réparation est couverte par votre garantie."],
    zh: ['很抱歉给您带来不便，我们的售后团队将在一个工作日内通过邮件联系您。', '抱歉给您添麻烦了。请在 App 中预约售后服务，本次维修在保修范围内。'],
  },
}

/** The service desk's user names (text on the feedback, as the reply action writes them), by language. */
export const STAFF: Record<Lang, readonly string[]> = {
  en: ['emma.devries', 'tom.harris'],
  de: ['lukas.becker', 'julia.wagner'],
  nl: ['sanne.bakker', 'daan.visser'],
  fr: ['chloe.martin'],
  zh: ['zhang.wei', 'li.na'],
}

/** Reasons staff give when they disable a member's account. */
export const DISABLE_REASONS = [
  'Disabled at the member’s request: account closed',
  'Suspected shared account; disabled pending identity check',
  'Repeated abusive feedback',
  'Chargeback on the bike purchase; disabled until resolved',
]

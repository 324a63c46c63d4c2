import type { AppLanguage } from '@velo/shared'

// What the demo's App content says, in the app's four languages (English, German, Dutch, French):
// agreements, system messages, release notes, activities, feature guides, banners, FAQ, policies,
// user help, error codes and service centres. Written as the company would write them, so the
// console and the app API show what a real content team keeps there.

export type Text4 = Readonly<Record<AppLanguage, string>>

/** A heading and its paragraph. */
type Section = readonly [heading: string, paragraph: string]

const html = (intro: string | null, sections: readonly Section[]) =>
  (intro ? `<p><em>${intro}</em></p>` : '') + sections.map(([h, p]) => `<h3>${h}</h3><p>${p}</p>`).join('')

// ---- Agreements

export const PROTOCOL_NAMES: Record<'privacy' | 'emailSubscription', Text4> = {
  privacy: { en_US: 'Velo Privacy Policy', de_DE: 'Velo Datenschutzerklärung', nl_NL: 'Velo Privacyverklaring', fr_FR: 'Politique de confidentialité Velo' },
  emailSubscription: {
    en_US: 'Velo Newsletter Subscription',
    de_DE: 'Velo Newsletter-Einwilligung',
    nl_NL: 'Velo Nieuwsbrief-toestemming',
    fr_FR: 'Consentement à la newsletter Velo',
  },
}

interface PrivacyParts {
  who: Section
  what: Section
  connected: Section
  why: Section
  keep: (rideRetention: 'three years' | '24 months') => Section
  rights: Section
  dealer: Section
  intro110: string
  intro120: string
}

const PRIVACY: Record<AppLanguage, PrivacyParts> = {
  en_US: {
    who: ['Who we are', 'Velo Europe B.V. (Stationsplein 45, 3013 AK Rotterdam, the Netherlands) is responsible for the personal data processed through the Velo app. Our data protection officer answers at privacy@velo.example.'],
    what: ['What we collect', 'Your account details (name, e-mail address, country, language and, if you enter them, phone number, birthday, height and weight), the bikes you bind (frame number, model, colour, size, battery health) and your rides (date, distance, duration, speeds, cadence and calories).'],
    connected: ['Connected bikes', 'If your bike has a Velo connect module, it sends its position when you use Find my bike, when the theft alarm goes off and, while you ride, every 30 seconds. Positions are kept for 30 days, then deleted. You can switch position reporting off in the app under Bike › Connectivity; Find my bike then stops working.'],
    why: ['Why we use it', 'To run your account and show your bikes and rides, to handle warranty and service requests, and to improve our bikes and the app from statistics that no longer identify you. We rely on our contract with you and on our legitimate interest in safe, reliable bikes (Art. 6(1)(b) and (f) GDPR).'],
    keep: (k) => ['How long we keep it', `Your account data as long as your account exists. Rides are deleted ${k === 'three years' ? 'three years' : '24 months'} after they were recorded. When you delete your account, everything is erased within 30 days, except what we must keep by law (invoices: seven years).`],
    rights: ['Your rights', 'You may ask for a copy of your data, have it corrected or erased, object to its use or take it to another provider: write to privacy@velo.example. You may also complain to the Dutch Data Protection Authority (Autoriteit Persoonsgegevens) or to the authority of your country.'],
    dealer: ['Sharing with your dealer', 'When you book a service in the app, we share your name, e-mail address, the frame number of the bike and its battery health with the dealer you chose, so they can prepare the service. Dealers may use these data only for that service.'],
    intro110: 'Version 1.1.0: we added how connected bikes report their position, and we now keep rides for 24 months instead of three years.',
    intro120: 'Version 1.2.0: we added what we share with your dealer when you book a service in the app.',
  },
  de_DE: {
    who: ['Wer wir sind', 'Verantwortlich für die personenbezogenen Daten, die über die Velo-App verarbeitet werden, ist die Velo Europe B.V. (Stationsplein 45, 3013 AK Rotterdam, Niederlande). Unseren Datenschutzbeauftragten erreichen Sie unter privacy@velo.example.'],
    what: ['Welche Daten wir erheben', 'Ihre Kontodaten (Name, E-Mail-Adresse, Land, Sprache und, sofern angegeben, Telefonnummer, Geburtsdatum, Größe und Gewicht), die von Ihnen verbundenen Räder (Rahmennummer, Modell, Farbe, Größe, Akkuzustand) und Ihre Fahrten (Datum, Strecke, Dauer, Geschwindigkeiten, Trittfrequenz und Kalorien).'],
    connected: ['Vernetzte Räder', 'Hat Ihr Rad ein Velo-Connect-Modul, sendet es seine Position, wenn Sie „Mein Rad finden“ nutzen, wenn der Diebstahlalarm auslöst und während der Fahrt alle 30 Sekunden. Positionen werden 30 Tage gespeichert und dann gelöscht. Sie können die Positionsmeldung in der App unter Rad › Konnektivität ausschalten; „Mein Rad finden“ funktioniert dann nicht mehr.'],
    why: ['Wofür wir sie verwenden', 'Um Ihr Konto zu führen und Ihre Räder und Fahrten anzuzeigen, um Garantie- und Serviceanfragen zu bearbeiten und um unsere Räder und die App anhand von Statistiken zu verbessern, die Sie nicht mehr identifizieren. Rechtsgrundlage sind der Vertrag mit Ihnen und unser berechtigtes Interesse an sicheren, zuverlässigen Rädern (Art. 6 Abs. 1 lit. b und f DSGVO).'],
    keep: (k) => ['Wie lange wir sie speichern', `Ihre Kontodaten, solange Ihr Konto besteht. Fahrten werden ${k === 'three years' ? 'drei Jahre' : '24 Monate'} nach ihrer Aufzeichnung gelöscht. Wenn Sie Ihr Konto löschen, wird innerhalb von 30 Tagen alles gelöscht, außer dem, was wir gesetzlich aufbewahren müssen (Rechnungen: sieben Jahre).`],
    rights: ['Ihre Rechte', 'Sie können eine Kopie Ihrer Daten verlangen, sie berichtigen oder löschen lassen, der Verarbeitung widersprechen oder sie zu einem anderen Anbieter mitnehmen: Schreiben Sie an privacy@velo.example. Sie können sich außerdem bei der niederländischen Datenschutzbehörde (Autoriteit Persoonsgegevens) oder der Aufsichtsbehörde Ihres Landes beschweren.'],
    dealer: ['Weitergabe an Ihren Händler', 'Wenn Sie in der App einen Service buchen, geben wir Ihren Namen, Ihre E-Mail-Adresse, die Rahmennummer des Rades und seinen Akkuzustand an den gewählten Händler weiter, damit er den Service vorbereiten kann. Händler dürfen diese Daten nur für diesen Service verwenden.'],
    intro110: 'Version 1.1.0: Wir haben ergänzt, wie vernetzte Räder ihre Position melden, und speichern Fahrten jetzt 24 Monate statt drei Jahre.',
    intro120: 'Version 1.2.0: Wir haben ergänzt, was wir an Ihren Händler weitergeben, wenn Sie in der App einen Service buchen.',
  },
  nl_NL: {
    who: ['Wie wij zijn', 'Velo Europe B.V. (Stationsplein 45, 3013 AK Rotterdam) is verantwoordelijk voor de persoonsgegevens die via de Velo-app worden verwerkt. Onze functionaris voor gegevensbescherming is bereikbaar via privacy@velo.example.'],
    what: ['Welke gegevens wij verzamelen', 'Je accountgegevens (naam, e-mailadres, land, taal en, als je ze invult, telefoonnummer, geboortedatum, lengte en gewicht), de fietsen die je koppelt (framenummer, model, kleur, maat, accuconditie) en je ritten (datum, afstand, duur, snelheden, trapfrequentie en calorieën).'],
    connected: ['Verbonden fietsen', 'Heeft je fiets een Velo connect-module, dan stuurt die zijn positie door als je ‘Vind mijn fiets’ gebruikt, als het diefstalalarm afgaat en tijdens het fietsen elke 30 seconden. Posities bewaren wij 30 dagen; daarna worden ze verwijderd. Je kunt het doorgeven van de positie uitzetten in de app onder Fiets › Verbinding; ‘Vind mijn fiets’ werkt dan niet meer.'],
    why: ['Waarvoor wij ze gebruiken', 'Om je account bij te houden en je fietsen en ritten te tonen, om garantie- en serviceverzoeken af te handelen en om onze fietsen en de app te verbeteren met statistieken die niet meer tot jou te herleiden zijn. Wij doen dit op basis van onze overeenkomst met jou en ons gerechtvaardigd belang bij veilige, betrouwbare fietsen (art. 6 lid 1 sub b en f AVG).'],
    keep: (k) => ['Hoe lang wij ze bewaren', `Je accountgegevens zolang je account bestaat. Ritten worden ${k === 'three years' ? 'drie jaar' : '24 maanden'} na het vastleggen verwijderd. Als je je account verwijdert, wissen wij binnen 30 dagen alles, behalve wat wij wettelijk moeten bewaren (facturen: zeven jaar).`],
    rights: ['Jouw rechten', 'Je kunt een kopie van je gegevens opvragen, ze laten corrigeren of wissen, bezwaar maken tegen het gebruik ervan of ze meenemen naar een andere aanbieder: mail naar privacy@velo.example. Je kunt ook een klacht indienen bij de Autoriteit Persoonsgegevens of bij de toezichthouder in je eigen land.'],
    dealer: ['Delen met je dealer', 'Als je in de app een onderhoudsbeurt boekt, delen wij je naam, e-mailadres, het framenummer van de fiets en de accuconditie met de dealer die je kiest, zodat die de beurt kan voorbereiden. Dealers mogen deze gegevens alleen daarvoor gebruiken.'],
    intro110: 'Versie 1.1.0: wij hebben toegevoegd hoe verbonden fietsen hun positie doorgeven, en wij bewaren ritten nu 24 maanden in plaats van drie jaar.',
    intro120: 'Versie 1.2.0: wij hebben toegevoegd wat wij met je dealer delen als je in de app een onderhoudsbeurt boekt.',
  },
  fr_FR: {
    who: ['Qui sommes-nous', 'Velo Europe B.V. (Stationsplein 45, 3013 AK Rotterdam, Pays-Bas) est responsable des données personnelles traitées via l’application Velo. Notre délégué à la protection des données répond à l’adresse privacy@velo.example.'],
    what: ['Les données que nous collectons', 'Les données de votre compte (nom, adresse e-mail, pays, langue et, si vous les indiquez, numéro de téléphone, date de naissance, taille et poids), les vélos que vous associez (numéro de cadre, modèle, couleur, taille, état de la batterie) et vos trajets (date, distance, durée, vitesses, cadence et calories).'],
    connected: ['Vélos connectés', 'Si votre vélo est équipé d’un module Velo connect, il transmet sa position lorsque vous utilisez « Localiser mon vélo », lorsque l’alarme antivol se déclenche et, pendant vos trajets, toutes les 30 secondes. Les positions sont conservées 30 jours, puis supprimées. Vous pouvez désactiver l’envoi de la position dans l’application sous Vélo › Connectivité ; « Localiser mon vélo » ne fonctionne alors plus.'],
    why: ['Pourquoi nous les utilisons', 'Pour gérer votre compte et afficher vos vélos et vos trajets, pour traiter les demandes de garantie et de service, et pour améliorer nos vélos et l’application à partir de statistiques qui ne vous identifient plus. Nous nous fondons sur notre contrat avec vous et sur notre intérêt légitime à proposer des vélos sûrs et fiables (art. 6, paragraphe 1, points b et f du RGPD).'],
    keep: (k) => ['Combien de temps nous les conservons', `Les données de votre compte tant que votre compte existe. Les trajets sont supprimés ${k === 'three years' ? 'trois ans' : '24 mois'} après leur enregistrement. Si vous supprimez votre compte, tout est effacé sous 30 jours, sauf ce que la loi nous oblige à conserver (factures : sept ans).`],
    rights: ['Vos droits', 'Vous pouvez demander une copie de vos données, les faire rectifier ou effacer, vous opposer à leur utilisation ou les transférer à un autre prestataire : écrivez à privacy@velo.example. Vous pouvez aussi adresser une réclamation à l’autorité néerlandaise de protection des données (Autoriteit Persoonsgegevens) ou à l’autorité de contrôle de votre pays.'],
    dealer: ['Partage avec votre revendeur', 'Lorsque vous réservez un entretien dans l’application, nous transmettons votre nom, votre adresse e-mail, le numéro de cadre du vélo et l’état de sa batterie au revendeur choisi, afin qu’il prépare l’intervention. Les revendeurs ne peuvent utiliser ces données que pour cet entretien.'],
    intro110: 'Version 1.1.0 : nous avons ajouté la manière dont les vélos connectés transmettent leur position, et nous conservons désormais les trajets 24 mois au lieu de trois ans.',
    intro120: 'Version 1.2.0 : nous avons ajouté ce que nous transmettons à votre revendeur lorsque vous réservez un entretien dans l’application.',
  },
}

interface NewsletterParts {
  lead: string
  data: Section
  unsubscribe: Section
  tracking: Section
  dealers: Section
  intro110: string
}

const NEWSLETTER: Record<AppLanguage, NewsletterParts> = {
  en_US: {
    lead: 'With the Velo newsletter you hear first about new bikes, app and firmware updates, events near you and offers for Velo riders. We send it at most twice a month.',
    data: ['What we use', 'Your name, e-mail address, country and language, so that every e-mail is in your language and about what happens in your country.'],
    unsubscribe: ['Unsubscribing', 'You can unsubscribe at any time with the link at the bottom of every e-mail or in the app under Profile › Notifications. Unsubscribing does not affect your account or your warranty.'],
    tracking: ['Opens and clicks', 'We now record whether our e-mails are opened and which links are clicked, to send you fewer e-mails that do not interest you. These records are deleted after 12 months.'],
    dealers: ['Dealer events', 'For events we organise together with a Velo dealer in your area, the e-mail names the dealer. We never give your address to a dealer.'],
    intro110: 'Version 1.1.0: we now measure opens and clicks, and e-mails about dealer events name the dealer.',
  },
  de_DE: {
    lead: 'Mit dem Velo-Newsletter erfahren Sie als Erste von neuen Rädern, App- und Firmware-Updates, Veranstaltungen in Ihrer Nähe und Angeboten für Velo-Fahrerinnen und -Fahrer. Wir senden ihn höchstens zweimal im Monat.',
    data: ['Welche Daten wir verwenden', 'Ihren Namen, Ihre E-Mail-Adresse, Ihr Land und Ihre Sprache, damit jede E-Mail in Ihrer Sprache ist und davon handelt, was in Ihrem Land passiert.'],
    unsubscribe: ['Abmelden', 'Sie können sich jederzeit über den Link am Ende jeder E-Mail oder in der App unter Profil › Benachrichtigungen abmelden. Die Abmeldung hat keinen Einfluss auf Ihr Konto oder Ihre Garantie.'],
    tracking: ['Öffnungen und Klicks', 'Wir erfassen jetzt, ob unsere E-Mails geöffnet und welche Links angeklickt werden, um Ihnen weniger E-Mails zu senden, die Sie nicht interessieren. Diese Daten werden nach 12 Monaten gelöscht.'],
    dealers: ['Händlerveranstaltungen', 'Bei Veranstaltungen, die wir gemeinsam mit einem Velo-Händler in Ihrer Nähe organisieren, nennt die E-Mail den Händler. Ihre Adresse geben wir nie an einen Händler weiter.'],
    intro110: 'Version 1.1.0: Wir messen jetzt Öffnungen und Klicks, und E-Mails zu Händlerveranstaltungen nennen den Händler.',
  },
  nl_NL: {
    lead: 'Met de Velo-nieuwsbrief hoor je als eerste over nieuwe fietsen, app- en firmware-updates, evenementen bij jou in de buurt en aanbiedingen voor Velo-rijders. Wij sturen hem hooguit twee keer per maand.',
    data: ['Welke gegevens wij gebruiken', 'Je naam, e-mailadres, land en taal, zodat elke e-mail in jouw taal is en gaat over wat er in jouw land gebeurt.'],
    unsubscribe: ['Afmelden', 'Je kunt je op elk moment afmelden via de link onderaan elke e-mail of in de app onder Profiel › Meldingen. Afmelden heeft geen gevolgen voor je account of je garantie.'],
    tracking: ['Openen en klikken', 'Wij houden nu bij of onze e-mails worden geopend en op welke links wordt geklikt, zodat wij je minder e-mails sturen die je niet interesseren. Deze gegevens worden na 12 maanden verwijderd.'],
    dealers: ['Dealerevenementen', 'Bij evenementen die wij samen met een Velo-dealer bij jou in de buurt organiseren, noemt de e-mail de dealer. Wij geven je adres nooit aan een dealer.'],
    intro110: 'Versie 1.1.0: wij meten nu openen en klikken, en e-mails over dealerevenementen noemen de dealer.',
  },
  fr_FR: {
    lead: 'Avec la newsletter Velo, vous êtes parmi les premiers informés des nouveaux vélos, des mises à jour de l’application et du micrologiciel, des événements près de chez vous et des offres réservées aux cyclistes Velo. Nous l’envoyons au maximum deux fois par mois.',
    data: ['Les données que nous utilisons', 'Votre nom, votre adresse e-mail, votre pays et votre langue, afin que chaque e-mail soit rédigé dans votre langue et parle de ce qui se passe dans votre pays.'],
    unsubscribe: ['Désinscription', 'Vous pouvez vous désinscrire à tout moment grâce au lien en bas de chaque e-mail ou dans l’application sous Profil › Notifications. La désinscription n’a aucune incidence sur votre compte ni sur votre garantie.'],
    tracking: ['Ouvertures et clics', 'Nous enregistrons désormais si nos e-mails sont ouverts et sur quels liens vous cliquez, afin de vous envoyer moins d’e-mails qui ne vous intéressent pas. Ces données sont supprimées au bout de 12 mois.'],
    dealers: ['Événements chez les revendeurs', 'Pour les événements que nous organisons avec un revendeur Velo près de chez vous, l’e-mail mentionne le revendeur. Nous ne communiquons jamais votre adresse à un revendeur.'],
    intro110: 'Version 1.1.0 : nous mesurons désormais les ouvertures et les clics, et les e-mails sur les événements chez les revendeurs mentionnent le revendeur.',
  },
}

/** The agreement's text of a type, version and language (HTML, as the rich-text editor keeps it). */
export function protocolContent(type: 'privacy' | 'emailSubscription', version: '1.0.0' | '1.1.0' | '1.2.0', lang: AppLanguage): string {
  if (type === 'privacy') {
    const p = PRIVACY[lang]
    if (version === '1.0.0') return html(null, [p.who, p.what, p.why, p.keep('three years'), p.rights])
    if (version === '1.1.0') return html(p.intro110, [p.who, p.what, p.connected, p.why, p.keep('24 months'), p.rights])
    return html(p.intro120, [p.who, p.what, p.connected, p.why, p.dealer, p.keep('24 months'), p.rights])
  }
  const n = NEWSLETTER[lang]
  const lead = `<p>${n.lead}</p>`
  if (version === '1.0.0') return lead + html(null, [n.data, n.unsubscribe])
  return html(n.intro110, []) + lead + html(null, [n.data, n.tracking, n.dealers, n.unsubscribe])
}

// ---- System messages (one text each: a message has no language, so it is written for its audience)

export interface MessageText {
  key: string
  title: string
  content: string
  remark?: string
}

export const MESSAGES = {
  app3: {
    key: 'app3',
    title: 'Velo app 3.0: please update',
    content:
      '<p>Velo 3.0 is here. The ride screen now shows your speed, assistance level and remaining range in large figures you can read at a glance, and your rides sync in the background.</p>' +
      '<p>This is a required update: earlier versions can no longer sync rides. Update from the App Store or Google Play.</p>',
  },
  heat: {
    key: 'heat',
    title: 'Hot days: keep your battery cool',
    content:
      '<p>Batteries age fastest in the heat. On hot days, park your bike in the shade, let the battery cool down before you charge it after a ride, and never leave it in a hot car.</p>' +
      '<p>The app shows your battery’s health under Bike › Battery.</p>',
  },
  privacy: {
    key: 'privacy',
    title: 'We have updated our privacy policy',
    content:
      '<p>From today, version 1.1.0 of our privacy policy applies. It explains how connected bikes report their position, and we now keep rides for 24 months instead of three years.</p>' +
      '<p>Open the app to read and accept it.</p>',
    remark: 'Sent with the publication of privacy policy 1.1.0',
  },
  lightsNl: {
    key: 'lightsNl',
    title: 'Gratis lichtcheck bij je Velo-dealer',
    content:
      '<p>De dagen worden korter. Tot en met 31 oktober controleert elke Velo-dealer in Nederland gratis je verlichting en remmen.</p>' +
      '<p>Maak een afspraak in de app onder Service.</p>',
  },
  autumnDe: {
    key: 'autumnDe',
    title: 'Herbst-Check: Licht, Bremsen, Reifen',
    content:
      '<p>Vor der dunklen Jahreszeit lohnt sich ein kurzer Check: Funktionieren Front- und Rücklicht? Greifen die Bremsen gleichmäßig? Haben die Reifen genug Profil und Druck?</p>' +
      '<p>Ihr Velo-Händler prüft das bis zum 30. November kostenlos. Termine in der App unter Service.</p>',
  },
  kickstand: {
    key: 'kickstand',
    title: 'Safety notice: check the kickstand of your Velo Haul',
    content:
      '<p>On some Velo Haul bikes built before June 2025, the two bolts that hold the centre kickstand can work loose. Please check that they are tight before you next carry children or cargo.</p>' +
      '<p>Any Velo dealer checks and replaces the bolts free of charge; it takes about ten minutes.</p>',
    remark: 'Sent to the owners of a Velo Haul',
  },
  winter: {
    key: 'winter',
    title: 'Winter riding: five tips for cold days',
    content:
      '<ul><li>Charge and store the battery indoors, at room temperature.</li><li>Expect about 20 % less range below 5 °C.</li>' +
      '<li>Lower your tyre pressure a little for more grip on wet leaves.</li><li>Switch your lights on, even during the day.</li>' +
      '<li>Clean and dry your chain after riding on salted roads.</li></ul>',
  },
  review: {
    key: 'review',
    title: 'Your 2026 on the bike',
    content: '<p>How far did you ride this year? From today, the app shows your 2026 in review: kilometres, rides, your longest ride and the CO₂ you saved.</p>',
    remark: 'Scheduled for the morning of 15 December',
  },
  salonFr: {
    key: 'salonFr',
    title: 'Velo au Salon du Cycle de Lyon, les 5 et 6 décembre',
    content: '<p>Venez essayer la nouvelle Velo Ridge et nos vélos cargo sur notre stand. Entrée gratuite pour les membres Velo sur présentation de l’application.</p>',
    remark: 'Draft: waiting for the stand number',
  },
} as const satisfies Record<string, MessageText>

// ---- App versions: [ios version, android version, days before the data's end, force?, notes]

export const APP_RELEASES: readonly (readonly [ios: string, android: string, daysAgo: number, force: boolean, notes: Text4])[] = [
  [
    '2.8.0', '2.8.1', 420, false,
    {
      en_US: 'Ride history now loads twice as fast. Fixes a crash when opening the map without a network.',
      de_DE: 'Der Fahrtenverlauf lädt jetzt doppelt so schnell. Behebt einen Absturz beim Öffnen der Karte ohne Netz.',
      nl_NL: 'De rittengeschiedenis laadt nu twee keer zo snel. Lost een crash op bij het openen van de kaart zonder netwerk.',
      fr_FR: 'L’historique des trajets se charge deux fois plus vite. Corrige un plantage à l’ouverture de la carte sans réseau.',
    },
  ],
  [
    '2.9.0', '2.9.0', 330, false,
    {
      en_US: 'Share your bike with family members: each gets their own account and unlock key.',
      de_DE: 'Teilen Sie Ihr Rad mit Familienmitgliedern: Jedes bekommt ein eigenes Konto und einen eigenen Schlüssel.',
      nl_NL: 'Deel je fiets met gezinsleden: iedereen krijgt een eigen account en ontgrendelsleutel.',
      fr_FR: 'Partagez votre vélo avec les membres de votre famille : chacun a son propre compte et sa propre clé de déverrouillage.',
    },
  ],
  [
    '3.0.0', '3.0.0', 260, true,
    {
      en_US: 'A new ride screen with large figures, background sync of rides and a new sign-in. This update is required: earlier versions can no longer sync rides.',
      de_DE: 'Neuer Fahrbildschirm mit großen Zahlen, Synchronisierung der Fahrten im Hintergrund und neue Anmeldung. Dieses Update ist erforderlich: Ältere Versionen können keine Fahrten mehr synchronisieren.',
      nl_NL: 'Een nieuw ritscherm met grote cijfers, ritten synchroniseren op de achtergrond en een nieuwe manier van inloggen. Deze update is verplicht: oudere versies kunnen geen ritten meer synchroniseren.',
      fr_FR: 'Un nouvel écran de trajet avec de grands chiffres, la synchronisation des trajets en arrière-plan et une nouvelle connexion. Cette mise à jour est obligatoire : les versions précédentes ne peuvent plus synchroniser les trajets.',
    },
  ],
  [
    '3.0.1', '3.0.2', 245, false,
    {
      en_US: 'Fixes rides that were counted twice after a lost connection.',
      de_DE: 'Behebt doppelt gezählte Fahrten nach einem Verbindungsabbruch.',
      nl_NL: 'Lost ritten op die na een verbroken verbinding dubbel werden geteld.',
      fr_FR: 'Corrige les trajets comptés deux fois après une perte de connexion.',
    },
  ],
  [
    '3.1.0', '3.1.0', 160, false,
    {
      en_US: 'Find my bike: your connected bike beeps and flashes so you can find it. New achievements for distance and streaks.',
      de_DE: 'Mein Rad finden: Ihr vernetztes Rad piept und blinkt, damit Sie es finden. Neue Erfolge für Strecke und Serien.',
      nl_NL: 'Vind mijn fiets: je verbonden fiets piept en knippert zodat je hem terugvindt. Nieuwe prestaties voor afstand en reeksen.',
      fr_FR: 'Localiser mon vélo : votre vélo connecté émet un bip et clignote pour que vous le retrouviez. Nouveaux succès de distance et de régularité.',
    },
  ],
  [
    '3.2.0', '3.2.0', 75, false,
    {
      en_US: 'Theft alarm: get a notification when your parked bike is moved. Battery health now shows on the bike card.',
      de_DE: 'Diebstahlalarm: Sie werden benachrichtigt, wenn Ihr abgestelltes Rad bewegt wird. Der Akkuzustand erscheint jetzt auf der Radkarte.',
      nl_NL: 'Diefstalalarm: je krijgt een melding als je geparkeerde fiets wordt verplaatst. De accuconditie staat nu op de fietskaart.',
      fr_FR: 'Alarme antivol : recevez une notification si votre vélo garé est déplacé. L’état de la batterie s’affiche désormais sur la fiche du vélo.',
    },
  ],
  [
    '3.2.1', '3.2.2', 40, false,
    {
      en_US: 'Bluetooth unlocking is faster and more reliable on phones with battery saving on.',
      de_DE: 'Bluetooth-Entsperren ist schneller und zuverlässiger auf Telefonen mit aktiviertem Energiesparmodus.',
      nl_NL: 'Ontgrendelen via Bluetooth is sneller en betrouwbaarder op telefoons met batterijbesparing aan.',
      fr_FR: 'Le déverrouillage Bluetooth est plus rapide et plus fiable sur les téléphones en mode économie d’énergie.',
    },
  ],
  [
    '3.3.0', '3.3.0', 9, false,
    {
      en_US: 'Your inbox: messages from Velo in one place. Service centres near you on the map, with opening hours and what they offer.',
      de_DE: 'Ihr Posteingang: Nachrichten von Velo an einem Ort. Servicepartner in Ihrer Nähe auf der Karte, mit Öffnungszeiten und Leistungen.',
      nl_NL: 'Je inbox: berichten van Velo op één plek. Servicepunten bij jou in de buurt op de kaart, met openingstijden en wat ze bieden.',
      fr_FR: 'Votre boîte de réception : les messages de Velo au même endroit. Les centres de service près de chez vous sur la carte, avec leurs horaires et leurs prestations.',
    },
  ],
]

// ---- Activities and banners share their pictures (a theme each)

export type Theme = 'autumn' | 'winter' | 'spring' | 'fietsweek' | 'stadtradeln' | 'lumieres' | 'cargoDay' | 'findBike' | 'blackFriday' | 'ridge' | 'summer'

/** A theme's picture: a bike of the category in the frame colour on the background. */
export const THEMES: Record<Theme, readonly ['city' | 'trekking' | 'cargo' | 'folding' | 'mountain', string, string]> = {
  autumn: ['trekking', '#B45309', '#FDE68A'],
  winter: ['city', '#1E3A8A', '#DBEAFE'],
  spring: ['city', '#15803D', '#DCFCE7'],
  fietsweek: ['city', '#EA580C', '#FFEDD5'],
  stadtradeln: ['trekking', '#16A34A', '#F0FDF4'],
  lumieres: ['folding', '#FACC15', '#1E1B4B'],
  cargoDay: ['cargo', '#2F4F3A', '#ECFCCB'],
  findBike: ['mountain', '#0EA5E9', '#E0F2FE'],
  blackFriday: ['city', '#F4F4F5', '#18181B'],
  ridge: ['mountain', '#EA580C', '#F4F4F5'],
  summer: ['trekking', '#0E7490', '#FEF9C3'],
}

export interface ActivityText {
  theme: Theme
  /** Days from the data's end (negative: before it) and hours into that day (UTC). */
  start: readonly [days: number, hours: number]
  end: readonly [days: number, hours: number]
  /** A country code: shown only there; none: everywhere. */
  country?: string
  bikeType?: string
  /** The IoT function (its command) the activity is about. */
  func?: string
  contactUs?: boolean
  reminder?: boolean
  /** The app marks it New for this many days after the start. */
  newDays?: number
  disabled?: boolean
  texts: Partial<Record<AppLanguage, readonly [name: string, subtitle: string, description: string]>>
}

export const ACTIVITIES: readonly ActivityText[] = [
  {
    theme: 'spring',
    start: [-240, 0],
    end: [-210, 0],
    texts: {
      en_US: ['Spring Ride Challenge', '20 rides in April', '<p>Ride 20 times in April and earn the Spring Starter badge. Every ride recorded in the app counts.</p>'],
      de_DE: ['Frühlings-Challenge', '20 Fahrten im April', '<p>Fahren Sie im April 20 Mal und erhalten Sie das Abzeichen „Frühlingsstarter“. Jede in der App aufgezeichnete Fahrt zählt.</p>'],
      nl_NL: ['Lente-uitdaging', '20 ritten in april', '<p>Fiets in april 20 keer en verdien de badge Lentestarter. Elke rit die de app vastlegt telt mee.</p>'],
      fr_FR: ['Défi du printemps', '20 trajets en avril', '<p>Roulez 20 fois en avril et gagnez le badge Départ de printemps. Chaque trajet enregistré dans l’application compte.</p>'],
    },
  },
  {
    theme: 'stadtradeln',
    start: [-180, 0],
    end: [-159, 0],
    country: 'DE',
    texts: {
      de_DE: [
        'Stadtradeln 2026 mit Velo',
        'Kilometer sammeln für Ihre Stadt',
        '<p>Velo fährt beim Stadtradeln mit: Verbinden Sie die App mit Ihrem Stadtradeln-Team, und Ihre Fahrten werden automatisch gezählt. Die drei Teams mit den meisten Velo-Kilometern gewinnen einen Service-Tag für ihre Räder.</p>',
      ],
    },
  },
  {
    theme: 'cargoDay',
    start: [-100, 8],
    end: [-100, 16],
    country: 'BE',
    bikeType: 'cargo',
    contactUs: true,
    texts: {
      nl_NL: ['Bakfietsdag voor gezinnen', 'Proefrijden met de Velo Haul in Gent', '<p>Probeer de Velo Haul met je kinderen op ons testparcours in Gent, met hulp bij het kiezen van zitjes en regenhoezen. Van 10 tot 18 uur, aan de Coupure.</p>'],
      fr_FR: ['Journée vélo cargo en famille', 'Essayez le Velo Haul à Gand', '<p>Essayez le Velo Haul avec vos enfants sur notre parcours d’essai à Gand, avec des conseils pour choisir sièges et housses de pluie. De 10 h à 18 h, le long de la Coupure.</p>'],
    },
  },
  {
    theme: 'fietsweek',
    start: [-70, 0],
    end: [-63, 0],
    country: 'NL',
    bikeType: 'city',
    texts: {
      nl_NL: ['Fietsweek: met de fiets naar je werk', 'Elke woon-werkrit telt dubbel', '<p>Tijdens de Fietsweek telt elke woon-werkrit dubbel voor je Velo-prestaties. Deel je mooiste route met #VeloFietsweek.</p>'],
    },
  },
  {
    theme: 'findBike',
    start: [-30, 0],
    end: [60, 0],
    func: 'findBike',
    newDays: 10,
    texts: {
      en_US: ['Try Find my bike', 'For bikes with a Velo connect module', '<p>Lost your bike in a full bike park? Tap Find my bike and it beeps and flashes its lights for 30 seconds.</p>'],
      de_DE: ['Probieren Sie „Mein Rad finden“', 'Für Räder mit Velo-Connect-Modul', '<p>Rad auf dem vollen Parkplatz verloren? Tippen Sie auf „Mein Rad finden“, und es piept und blinkt 30 Sekunden lang.</p>'],
      nl_NL: ['Probeer ‘Vind mijn fiets’', 'Voor fietsen met een Velo connect-module', '<p>Fiets kwijt in een volle stalling? Tik op ‘Vind mijn fiets’ en hij piept en knippert 30 seconden lang.</p>'],
      fr_FR: ['Essayez « Localiser mon vélo »', 'Pour les vélos équipés d’un module Velo connect', '<p>Vous ne retrouvez plus votre vélo dans un parking plein ? Touchez « Localiser mon vélo » : il émet un bip et fait clignoter ses feux pendant 30 secondes.</p>'],
    },
  },
  {
    theme: 'autumn',
    start: [-24, 0],
    end: [7, 0],
    reminder: true,
    newDays: 7,
    texts: {
      en_US: [
        'Autumn Kilometre Challenge',
        'Ride 300 km by 1 December',
        '<p>Ride 300 km between 31 October and 1 December and earn the Autumn Rider badge. Every ride recorded in the app counts, commutes included.</p><p>Among everyone who finishes we draw ten Velo service vouchers worth €100.</p>',
      ],
      de_DE: [
        'Herbst-Kilometer-Challenge',
        '300 km bis zum 1. Dezember',
        '<p>Fahren Sie zwischen dem 31. Oktober und dem 1. Dezember 300 km und erhalten Sie das Abzeichen „Herbstfahrer“. Jede in der App aufgezeichnete Fahrt zählt, auch der Weg zur Arbeit.</p><p>Unter allen, die es schaffen, verlosen wir zehn Velo-Servicegutscheine im Wert von je 100 €.</p>',
      ],
      nl_NL: [
        'Herfst-kilometeruitdaging',
        'Fiets 300 km vóór 1 december',
        '<p>Fiets tussen 31 oktober en 1 december 300 km en verdien de badge Herfstrijder. Elke rit die de app vastlegt telt mee, ook woon-werkritten.</p><p>Onder iedereen die het haalt verloten wij tien Velo-servicebonnen van € 100.</p>',
      ],
      fr_FR: [
        'Défi kilométrique d’automne',
        '300 km avant le 1er décembre',
        '<p>Parcourez 300 km entre le 31 octobre et le 1er décembre et gagnez le badge Cycliste d’automne. Chaque trajet enregistré dans l’application compte, y compris vos trajets domicile-travail.</p><p>Parmi tous ceux qui réussissent, nous tirons au sort dix bons d’entretien Velo de 100 €.</p>',
      ],
    },
  },
  {
    theme: 'blackFriday',
    start: [3, 0],
    end: [6, 0],
    disabled: true,
    texts: {
      en_US: ['Black Friday accessories sale', 'Waiting for the final prices', '<p>20 % off helmets, locks and panniers in the Velo shop, from Friday to Monday.</p>'],
    },
  },
  {
    theme: 'winter',
    start: [10, 0],
    end: [45, 0],
    contactUs: true,
    reminder: true,
    newDays: 14,
    texts: {
      en_US: [
        'Winter Check-up Weeks',
        'A free 20-point check at your dealer',
        '<p>From 4 December to 8 January, Velo dealers check your bike for winter free of charge: lights, brakes, tyres, chain, battery contacts and the latest firmware.</p><p>Book a time in the app, or contact us if there is no dealer near you.</p>',
      ],
      de_DE: [
        'Winter-Check-Wochen',
        'Kostenloser 20-Punkte-Check bei Ihrem Händler',
        '<p>Vom 4. Dezember bis 8. Januar machen Velo-Händler Ihr Rad kostenlos winterfit: Licht, Bremsen, Reifen, Kette, Akkukontakte und die neueste Firmware.</p><p>Buchen Sie einen Termin in der App oder kontaktieren Sie uns, wenn es keinen Händler in Ihrer Nähe gibt.</p>',
      ],
      nl_NL: [
        'Wintercheckweken',
        'Gratis 20-puntencheck bij je dealer',
        '<p>Van 4 december tot 8 januari maken Velo-dealers je fiets gratis winterklaar: verlichting, remmen, banden, ketting, accucontacten en de nieuwste firmware.</p><p>Plan een afspraak in de app, of neem contact met ons op als er geen dealer bij jou in de buurt is.</p>',
      ],
      fr_FR: [
        'Semaines de révision d’hiver',
        'Un contrôle gratuit en 20 points chez votre revendeur',
        '<p>Du 4 décembre au 8 janvier, les revendeurs Velo préparent gratuitement votre vélo pour l’hiver : éclairage, freins, pneus, chaîne, contacts de la batterie et dernier micrologiciel.</p><p>Réservez un créneau dans l’application, ou contactez-nous s’il n’y a pas de revendeur près de chez vous.</p>',
      ],
    },
  },
  {
    theme: 'lumieres',
    // 18:00 to 22:00 in Lyon (UTC+1).
    start: [14, 17],
    end: [14, 21],
    country: 'FR',
    contactUs: true,
    texts: {
      fr_FR: [
        'Balade des Lumières à Lyon',
        'Une balade nocturne de 12 km le 8 décembre',
        '<p>Rejoignez-nous pour une balade de 12 km à travers Lyon illuminée pour la Fête des Lumières. Départ à 18 h place Bellecour ; vélos d’essai Velo disponibles sur réservation.</p>',
      ],
    },
  },
]

export interface BannerText {
  theme: Theme
  start: number
  /** null: no end. */
  end: number | null
  order: number
  country?: string
  disabled?: boolean
  /** The link's path after https://velo.example/{language}/ */
  link: string
  titles: Partial<Text4>
}

export const BANNERS: readonly BannerText[] = [
  {
    theme: 'summer',
    start: -150,
    end: -120,
    order: 1,
    link: 'shop/summer-sale',
    titles: {
      en_US: 'Summer sale: 15 % off panniers and locks',
      de_DE: 'Sommeraktion: 15 % auf Taschen und Schlösser',
      nl_NL: 'Zomeractie: 15 % korting op tassen en sloten',
      fr_FR: 'Soldes d’été : –15 % sur les sacoches et antivols',
    },
  },
  { theme: 'fietsweek', start: -75, end: -63, order: 2, country: 'NL', link: 'fietsweek', titles: { nl_NL: 'Fietsweek: elke woon-werkrit telt dubbel' } },
  {
    theme: 'autumn',
    start: -24,
    end: 7,
    order: 1,
    link: 'challenge/autumn-2026',
    titles: {
      en_US: 'Autumn Kilometre Challenge: 300 km by 1 December',
      de_DE: 'Herbst-Kilometer-Challenge: 300 km bis zum 1. Dezember',
      nl_NL: 'Herfst-kilometeruitdaging: 300 km vóór 1 december',
      fr_FR: 'Défi kilométrique d’automne : 300 km avant le 1er décembre',
    },
  },
  {
    theme: 'ridge',
    start: -10,
    end: null,
    order: 2,
    link: 'bikes/velo-ridge',
    titles: {
      en_US: 'New Velo Ridge 2027: 750 Wh, 85 Nm',
      de_DE: 'Neu: Velo Ridge 2027 mit 750 Wh und 85 Nm',
      nl_NL: 'Nieuw: Velo Ridge 2027 met 750 Wh en 85 Nm',
      fr_FR: 'Nouveau : Velo Ridge 2027, 750 Wh et 85 Nm',
    },
  },
  { theme: 'lumieres', start: -3, end: 15, order: 3, country: 'FR', link: 'evenements/balade-des-lumieres', titles: { fr_FR: 'Balade des Lumières à Lyon, le 8 décembre' } },
  { theme: 'blackFriday', start: 3, end: 6, order: 3, disabled: true, link: 'shop/black-friday', titles: { en_US: 'Black Friday: 20 % off helmets, locks and panniers' } },
  {
    theme: 'winter',
    start: 10,
    end: 45,
    order: 3,
    link: 'service/winter-check',
    titles: {
      en_US: 'Winter Check-up Weeks: a free check at your dealer',
      de_DE: 'Winter-Check-Wochen: kostenloser Check beim Händler',
      nl_NL: 'Wintercheckweken: gratis check bij je dealer',
      fr_FR: 'Révision d’hiver : un contrôle gratuit chez votre revendeur',
    },
  },
]

// ---- Feature guides: [image colour, background, IoT function command, texts]

export const GUIDES: readonly (readonly [frame: string, background: string, func: string | null, texts: Record<AppLanguage, readonly [title: string, description: string]>])[] = [
  [
    '#1677FF', '#E6F0FF', null,
    {
      en_US: ['Bind your bike', 'Scan the frame number on the sticker under the bottom bracket, or type it in. Your bike then appears on the home screen.'],
      de_DE: ['Ihr Rad verbinden', 'Scannen Sie die Rahmennummer auf dem Aufkleber unter dem Tretlager oder geben Sie sie ein. Danach erscheint Ihr Rad auf dem Startbildschirm.'],
      nl_NL: ['Koppel je fiets', 'Scan het framenummer op de sticker onder de trapas of typ het in. Daarna staat je fiets op het startscherm.'],
      fr_FR: ['Associez votre vélo', 'Scannez le numéro de cadre sur l’autocollant sous le boîtier de pédalier, ou saisissez-le. Votre vélo apparaît ensuite sur l’écran d’accueil.'],
    },
  ],
  [
    '#7C3AED', '#EDE9FE', 'unlock',
    {
      en_US: ['Unlock with Bluetooth', 'With Bluetooth unlocking on, your bike unlocks when you come near with your phone. Turn it on under Bike › Unlocking.'],
      de_DE: ['Mit Bluetooth entsperren', 'Ist Bluetooth-Entsperren eingeschaltet, entsperrt sich Ihr Rad, sobald Sie mit Ihrem Telefon in die Nähe kommen. Einschalten unter Rad › Entsperren.'],
      nl_NL: ['Ontgrendelen met Bluetooth', 'Met ontgrendelen via Bluetooth gaat je fiets open zodra je er met je telefoon in de buurt komt. Zet het aan onder Fiets › Ontgrendelen.'],
      fr_FR: ['Déverrouiller en Bluetooth', 'Avec le déverrouillage Bluetooth activé, votre vélo se déverrouille quand vous approchez avec votre téléphone. Activez-le sous Vélo › Déverrouillage.'],
    },
  ],
  [
    '#0EA5E9', '#E0F2FE', 'findBike',
    {
      en_US: ['Find my bike', 'Can’t see your bike? Tap Find my bike: it beeps and flashes for 30 seconds. Works for bikes with a Velo connect module.'],
      de_DE: ['Mein Rad finden', 'Sie sehen Ihr Rad nicht? Tippen Sie auf „Mein Rad finden“: Es piept und blinkt 30 Sekunden lang. Funktioniert bei Rädern mit Velo-Connect-Modul.'],
      nl_NL: ['Vind mijn fiets', 'Zie je je fiets niet? Tik op ‘Vind mijn fiets’: hij piept en knippert 30 seconden. Werkt bij fietsen met een Velo connect-module.'],
      fr_FR: ['Localiser mon vélo', 'Vous ne voyez pas votre vélo ? Touchez « Localiser mon vélo » : il émet un bip et clignote pendant 30 secondes. Fonctionne avec les vélos équipés d’un module Velo connect.'],
    },
  ],
  [
    '#DC2626', '#FEE2E2', 'setAlarm',
    {
      en_US: ['Theft alarm', 'Arm the alarm when you park. If the bike is moved, it sounds and you get a notification with its position.'],
      de_DE: ['Diebstahlalarm', 'Schalten Sie den Alarm beim Abstellen ein. Wird das Rad bewegt, ertönt er, und Sie erhalten eine Benachrichtigung mit der Position.'],
      nl_NL: ['Diefstalalarm', 'Zet het alarm aan als je parkeert. Wordt de fiets verplaatst, dan gaat het af en krijg je een melding met de positie.'],
      fr_FR: ['Alarme antivol', 'Activez l’alarme quand vous vous garez. Si le vélo est déplacé, elle retentit et vous recevez une notification avec sa position.'],
    },
  ],
  [
    '#16A34A', '#DCFCE7', null,
    {
      en_US: ['Your rides', 'Every ride is saved with distance, time, speed and calories. Swipe between weeks and months to see how far you have come.'],
      de_DE: ['Ihre Fahrten', 'Jede Fahrt wird mit Strecke, Zeit, Geschwindigkeit und Kalorien gespeichert. Wischen Sie zwischen Wochen und Monaten, um zu sehen, wie weit Sie gekommen sind.'],
      nl_NL: ['Je ritten', 'Elke rit wordt opgeslagen met afstand, tijd, snelheid en calorieën. Veeg tussen weken en maanden om te zien hoe ver je bent gekomen.'],
      fr_FR: ['Vos trajets', 'Chaque trajet est enregistré avec la distance, la durée, la vitesse et les calories. Faites défiler les semaines et les mois pour voir le chemin parcouru.'],
    },
  ],
]

// ---- Achievements (one name per achievement: the app translates its own labels of them)

export const ACHIEVEMENTS: readonly (readonly [name: string, levels: readonly number[], describe: (target: string) => string, event?: string])[] = [
  ['Distance', [100, 500, 1_000, 5_000, 10_000], (t) => `Ride ${t} km in total.`],
  ['Rides', [10, 50, 250, 1_000], (t) => `Record ${t} rides.`],
  ['Streak', [3, 7, 30], (t) => `Ride on ${t} days in a row.`],
  ['Early bird', [5, 25], (t) => `Start ${t} rides before 7:00.`],
  ['CO₂ saved', [10, 100, 500], (t) => `Save ${t} kg of CO₂ compared with making the same trips by car.`],
  ['Spring Starter', [20], (t) => `Ride ${t} times in April 2026 (Spring Ride Challenge).`, '#16A34A'],
  ['Autumn Rider', [300], (t) => `Ride ${t} km in the Autumn Kilometre Challenge.`, '#B45309'],
]

/** Medal colours by level: bronze, silver, gold, platinum, diamond. */
export const LEVEL_COLOURS = ['#CD7F32', '#A8A9AD', '#D4AF37', '#8FD3E8', '#7C3AED'] as const

// ---- FAQ: [type, texts per language: title, introduction, content]

export const FAQ: readonly (readonly ['riding' | 'battery' | 'app' | 'warranty', Record<AppLanguage, readonly [string, string, string]>])[] = [
  [
    'battery',
    {
      en_US: [
        'How far can I ride on one charge?',
        'Between 45 and 90 km, depending on the model and how you ride.',
        '<p>The range depends on the battery, the assistance level, the terrain, the wind, your weight and the temperature. As a guide, in Eco mode: Velo Fold 45 km, Velo Haul 55 km, Velo Ridge 60 km, Velo Metro 70 km and Velo Tour 90 km.</p><p>The app shows the remaining range for your current assistance level on the ride screen.</p>',
      ],
      de_DE: [
        'Wie weit komme ich mit einer Akkuladung?',
        'Zwischen 45 und 90 km, je nach Modell und Fahrweise.',
        '<p>Die Reichweite hängt vom Akku, der Unterstützungsstufe, dem Gelände, dem Wind, Ihrem Gewicht und der Temperatur ab. Als Richtwert im Eco-Modus: Velo Fold 45 km, Velo Haul 55 km, Velo Ridge 60 km, Velo Metro 70 km und Velo Tour 90 km.</p><p>Die App zeigt auf dem Fahrbildschirm die verbleibende Reichweite für die aktuelle Unterstützungsstufe.</p>',
      ],
      nl_NL: [
        'Hoe ver kom ik op één acculading?',
        'Tussen 45 en 90 km, afhankelijk van het model en hoe je fietst.',
        '<p>De actieradius hangt af van de accu, het ondersteuningsniveau, het terrein, de wind, je gewicht en de temperatuur. Als richtlijn in de Eco-stand: Velo Fold 45 km, Velo Haul 55 km, Velo Ridge 60 km, Velo Metro 70 km en Velo Tour 90 km.</p><p>De app toont op het ritscherm de resterende actieradius voor het huidige ondersteuningsniveau.</p>',
      ],
      fr_FR: [
        'Quelle autonomie avec une charge ?',
        'Entre 45 et 90 km, selon le modèle et votre façon de rouler.',
        '<p>L’autonomie dépend de la batterie, du niveau d’assistance, du relief, du vent, de votre poids et de la température. À titre indicatif, en mode Eco : Velo Fold 45 km, Velo Haul 55 km, Velo Ridge 60 km, Velo Metro 70 km et Velo Tour 90 km.</p><p>L’application affiche sur l’écran de trajet l’autonomie restante pour le niveau d’assistance choisi.</p>',
      ],
    },
  ],
  [
    'battery',
    {
      en_US: [
        'How do I store the battery in winter?',
        'Indoors, at room temperature, charged to about 60 %.',
        '<p>If you don’t ride for a few weeks, charge the battery to 50–70 %, remove it from the bike and keep it indoors between 10 and 20 °C. Check the charge every two months and top it up if it has dropped below 30 %.</p><p>Never charge a battery that is below 0 °C: let it warm up first.</p>',
      ],
      de_DE: [
        'Wie lagere ich den Akku im Winter?',
        'Drinnen, bei Zimmertemperatur, zu etwa 60 % geladen.',
        '<p>Wenn Sie einige Wochen nicht fahren, laden Sie den Akku auf 50–70 %, nehmen ihn vom Rad und bewahren ihn drinnen bei 10 bis 20 °C auf. Prüfen Sie den Ladestand alle zwei Monate und laden Sie nach, wenn er unter 30 % gefallen ist.</p><p>Laden Sie nie einen Akku, der kälter als 0 °C ist: Lassen Sie ihn erst warm werden.</p>',
      ],
      nl_NL: [
        'Hoe bewaar ik de accu in de winter?',
        'Binnen, op kamertemperatuur, voor ongeveer 60 % geladen.',
        '<p>Fiets je een paar weken niet, laad de accu dan op tot 50–70 %, haal hem van de fiets en bewaar hem binnen tussen 10 en 20 °C. Controleer de lading elke twee maanden en laad bij als die onder 30 % is gezakt.</p><p>Laad nooit een accu die kouder is dan 0 °C: laat hem eerst opwarmen.</p>',
      ],
      fr_FR: [
        'Comment stocker la batterie en hiver ?',
        'À l’intérieur, à température ambiante, chargée à environ 60 %.',
        '<p>Si vous ne roulez pas pendant quelques semaines, chargez la batterie entre 50 et 70 %, retirez-la du vélo et conservez-la à l’intérieur entre 10 et 20 °C. Vérifiez la charge tous les deux mois et rechargez-la si elle est descendue sous 30 %.</p><p>Ne chargez jamais une batterie en dessous de 0 °C : laissez-la d’abord se réchauffer.</p>',
      ],
    },
  ],
  [
    'battery',
    {
      en_US: [
        'How long does charging take?',
        'About 4 to 6 hours from empty with the standard charger.',
        '<p>With the 4 A charger supplied with your bike, a 500 Wh battery is full in about 4.5 hours; 80 % takes about 3 hours. The Velo Haul’s two batteries charge one after the other.</p><p>The battery’s LEDs and the app show the charge level while it charges.</p>',
      ],
      de_DE: [
        'Wie lange dauert das Laden?',
        'Etwa 4 bis 6 Stunden von leer mit dem Standard-Ladegerät.',
        '<p>Mit dem mitgelieferten 4-A-Ladegerät ist ein 500-Wh-Akku in etwa 4,5 Stunden voll, 80 % dauern etwa 3 Stunden. Die beiden Akkus des Velo Haul werden nacheinander geladen.</p><p>Die LEDs am Akku und die App zeigen den Ladestand während des Ladens.</p>',
      ],
      nl_NL: [
        'Hoe lang duurt het opladen?',
        'Ongeveer 4 tot 6 uur van leeg met de standaardlader.',
        '<p>Met de meegeleverde lader van 4 A is een accu van 500 Wh in ongeveer 4,5 uur vol; 80 % duurt ongeveer 3 uur. De twee accu’s van de Velo Haul laden na elkaar.</p><p>De lampjes op de accu en de app tonen het laadniveau tijdens het laden.</p>',
      ],
      fr_FR: [
        'Combien de temps dure la recharge ?',
        'Environ 4 à 6 heures à partir d’une batterie vide avec le chargeur standard.',
        '<p>Avec le chargeur 4 A fourni avec votre vélo, une batterie de 500 Wh est pleine en 4 h 30 environ, et 80 % prennent environ 3 heures. Les deux batteries du Velo Haul se rechargent l’une après l’autre.</p><p>Les voyants de la batterie et l’application indiquent le niveau de charge pendant la recharge.</p>',
      ],
    },
  ],
  [
    'riding',
    {
      en_US: [
        'Why does the motor stop assisting at 25 km/h?',
        'European law limits the pedal assistance of e-bikes to 25 km/h.',
        '<p>Under EU rules (EN 15194), an electrically power assisted cycle may assist you up to 25 km/h. Above that you can ride faster on your own power; the motor assists again as soon as you drop below 25 km/h.</p><p>Bikes sold in the United States are set to the local Class 1 limit of 20 mph (32 km/h).</p>',
      ],
      de_DE: [
        'Warum hört der Motor bei 25 km/h auf zu unterstützen?',
        'Das europäische Recht begrenzt die Tretunterstützung von Pedelecs auf 25 km/h.',
        '<p>Nach EU-Recht (EN 15194) darf ein Pedelec Sie bis 25 km/h unterstützen. Darüber können Sie aus eigener Kraft schneller fahren; der Motor unterstützt wieder, sobald Sie unter 25 km/h fallen.</p><p>In den USA verkaufte Räder sind auf die dortige Grenze der Klasse 1 von 20 mph (32 km/h) eingestellt.</p>',
      ],
      nl_NL: [
        'Waarom stopt de motor met ondersteunen bij 25 km/u?',
        'De Europese wet beperkt de trapondersteuning van e-bikes tot 25 km/u.',
        '<p>Volgens de EU-regels (EN 15194) mag een elektrische fiets je ondersteunen tot 25 km/u. Daarboven kun je op eigen kracht harder fietsen; de motor ondersteunt weer zodra je onder 25 km/u komt.</p><p>Fietsen die in de Verenigde Staten worden verkocht, zijn ingesteld op de daar geldende grens van klasse 1: 20 mph (32 km/u).</p>',
      ],
      fr_FR: [
        'Pourquoi le moteur cesse-t-il d’assister à 25 km/h ?',
        'La réglementation européenne limite l’assistance au pédalage des VAE à 25 km/h.',
        '<p>Selon la réglementation européenne (EN 15194), un vélo à assistance électrique peut vous assister jusqu’à 25 km/h. Au-delà, vous pouvez rouler plus vite à la force des jambes ; le moteur reprend dès que vous repassez sous 25 km/h.</p><p>Les vélos vendus aux États-Unis sont réglés sur la limite locale de la classe 1 : 20 mph (32 km/h).</p>',
      ],
    },
  ],
  [
    'riding',
    {
      en_US: [
        'Can I ride in the rain?',
        'Yes: Velo bikes are protected against rain and splashing water (IP54).',
        '<p>Motor, battery and display are sealed against rain and spray. Don’t clean the bike with a pressure washer and don’t ride through water deeper than the bottom bracket.</p><p>After riding in the rain, dry the battery contacts before charging.</p>',
      ],
      de_DE: [
        'Kann ich bei Regen fahren?',
        'Ja: Velo-Räder sind gegen Regen und Spritzwasser geschützt (IP54).',
        '<p>Motor, Akku und Display sind gegen Regen und Spritzwasser abgedichtet. Reinigen Sie das Rad nicht mit einem Hochdruckreiniger und fahren Sie nicht durch Wasser, das höher als das Tretlager steht.</p><p>Trocknen Sie nach einer Regenfahrt die Akkukontakte, bevor Sie laden.</p>',
      ],
      nl_NL: [
        'Kan ik in de regen fietsen?',
        'Ja: Velo-fietsen zijn beschermd tegen regen en opspattend water (IP54).',
        '<p>Motor, accu en display zijn afgedicht tegen regen en opspattend water. Maak de fiets niet schoon met een hogedrukreiniger en rijd niet door water dat hoger staat dan de trapas.</p><p>Droog na een rit in de regen de accucontacten voordat je gaat laden.</p>',
      ],
      fr_FR: [
        'Puis-je rouler sous la pluie ?',
        'Oui : les vélos Velo sont protégés contre la pluie et les projections d’eau (IP54).',
        '<p>Le moteur, la batterie et l’écran sont étanches à la pluie et aux projections. Ne nettoyez pas le vélo au nettoyeur haute pression et ne traversez pas d’eau plus haute que le boîtier de pédalier.</p><p>Après un trajet sous la pluie, séchez les contacts de la batterie avant de la recharger.</p>',
      ],
    },
  ],
  [
    'app',
    {
      en_US: [
        'How do I bind my bike to the app?',
        'Scan the frame number, then confirm on the bike’s display.',
        '<p>Tap + on the home screen and scan the frame number on the sticker under the bottom bracket (or type it in). Switch the bike on: its display shows a six-digit code; enter it in the app to confirm that the bike is yours.</p><p>A bike can be bound to one account at a time. If it is still bound to a previous owner, contact our service desk.</p>',
      ],
      de_DE: [
        'Wie verbinde ich mein Rad mit der App?',
        'Rahmennummer scannen, dann am Display des Rades bestätigen.',
        '<p>Tippen Sie auf dem Startbildschirm auf + und scannen Sie die Rahmennummer auf dem Aufkleber unter dem Tretlager (oder geben Sie sie ein). Schalten Sie das Rad ein: Das Display zeigt einen sechsstelligen Code; geben Sie ihn in der App ein, um zu bestätigen, dass es Ihr Rad ist.</p><p>Ein Rad kann immer nur mit einem Konto verbunden sein. Ist es noch mit dem Vorbesitzer verbunden, wenden Sie sich an unseren Kundendienst.</p>',
      ],
      nl_NL: [
        'Hoe koppel ik mijn fiets aan de app?',
        'Scan het framenummer en bevestig op het display van de fiets.',
        '<p>Tik op + op het startscherm en scan het framenummer op de sticker onder de trapas (of typ het in). Zet de fiets aan: het display toont een code van zes cijfers; vul die in de app in om te bevestigen dat de fiets van jou is.</p><p>Een fiets kan aan één account tegelijk gekoppeld zijn. Is hij nog gekoppeld aan een vorige eigenaar, neem dan contact op met onze klantenservice.</p>',
      ],
      fr_FR: [
        'Comment associer mon vélo à l’application ?',
        'Scannez le numéro de cadre, puis confirmez sur l’écran du vélo.',
        '<p>Touchez + sur l’écran d’accueil et scannez le numéro de cadre sur l’autocollant sous le boîtier de pédalier (ou saisissez-le). Allumez le vélo : son écran affiche un code à six chiffres ; saisissez-le dans l’application pour confirmer que le vélo est bien le vôtre.</p><p>Un vélo ne peut être associé qu’à un seul compte à la fois. S’il est encore associé à un ancien propriétaire, contactez notre service client.</p>',
      ],
    },
  ],
  [
    'app',
    {
      en_US: [
        'The app can’t find my bike over Bluetooth',
        'Check Bluetooth and the app’s permissions, then restart the bike.',
        '<p>Make sure Bluetooth is on and that the Velo app may use Bluetooth and, on Android, your location. Switch the bike off and on again and stay within a few metres of it.</p><p>If it still doesn’t connect, remove the bike from your phone’s Bluetooth settings and open the app again: it pairs anew.</p>',
      ],
      de_DE: [
        'Die App findet mein Rad nicht über Bluetooth',
        'Prüfen Sie Bluetooth und die Berechtigungen der App, dann starten Sie das Rad neu.',
        '<p>Stellen Sie sicher, dass Bluetooth eingeschaltet ist und die Velo-App Bluetooth und unter Android Ihren Standort verwenden darf. Schalten Sie das Rad aus und wieder ein und bleiben Sie in wenigen Metern Entfernung.</p><p>Klappt es immer noch nicht, entfernen Sie das Rad aus den Bluetooth-Einstellungen Ihres Telefons und öffnen Sie die App erneut: Sie koppelt sich neu.</p>',
      ],
      nl_NL: [
        'De app vindt mijn fiets niet via Bluetooth',
        'Controleer Bluetooth en de machtigingen van de app, en herstart de fiets.',
        '<p>Zorg dat Bluetooth aan staat en dat de Velo-app Bluetooth en, op Android, je locatie mag gebruiken. Zet de fiets uit en weer aan en blijf binnen een paar meter.</p><p>Lukt het nog steeds niet, verwijder de fiets dan uit de Bluetooth-instellingen van je telefoon en open de app opnieuw: die koppelt dan opnieuw.</p>',
      ],
      fr_FR: [
        'L’application ne trouve pas mon vélo en Bluetooth',
        'Vérifiez le Bluetooth et les autorisations de l’application, puis redémarrez le vélo.',
        '<p>Vérifiez que le Bluetooth est activé et que l’application Velo peut utiliser le Bluetooth et, sur Android, votre position. Éteignez puis rallumez le vélo et restez à quelques mètres.</p><p>Si la connexion échoue toujours, supprimez le vélo des réglages Bluetooth de votre téléphone et rouvrez l’application : elle l’associe à nouveau.</p>',
      ],
    },
  ],
  [
    'app',
    {
      en_US: [
        'How do I share my bike with my family?',
        'Invite them from the bike card; each gets their own unlock key.',
        '<p>Open your bike, tap Share and enter the e-mail address of the person you want to share it with. Once they accept in their own Velo app, they can unlock and ride the bike and see their own rides. You can stop sharing at any time.</p>',
      ],
      de_DE: [
        'Wie teile ich mein Rad mit meiner Familie?',
        'Laden Sie sie über die Radkarte ein; jede Person bekommt einen eigenen Schlüssel.',
        '<p>Öffnen Sie Ihr Rad, tippen Sie auf Teilen und geben Sie die E-Mail-Adresse der Person ein, mit der Sie es teilen möchten. Sobald sie in ihrer eigenen Velo-App annimmt, kann sie das Rad entsperren, damit fahren und ihre eigenen Fahrten sehen. Sie können das Teilen jederzeit beenden.</p>',
      ],
      nl_NL: [
        'Hoe deel ik mijn fiets met mijn gezin?',
        'Nodig ze uit via de fietskaart; iedereen krijgt een eigen sleutel.',
        '<p>Open je fiets, tik op Delen en vul het e-mailadres in van degene met wie je hem wilt delen. Zodra die in de eigen Velo-app accepteert, kan hij of zij de fiets ontgrendelen, ermee rijden en de eigen ritten zien. Je kunt het delen op elk moment stoppen.</p>',
      ],
      fr_FR: [
        'Comment partager mon vélo avec ma famille ?',
        'Invitez-les depuis la fiche du vélo ; chacun reçoit sa propre clé.',
        '<p>Ouvrez votre vélo, touchez Partager et saisissez l’adresse e-mail de la personne avec qui vous voulez le partager. Dès qu’elle accepte dans sa propre application Velo, elle peut déverrouiller le vélo, rouler et voir ses propres trajets. Vous pouvez arrêter le partage à tout moment.</p>',
      ],
    },
  ],
  [
    'warranty',
    {
      en_US: [
        'What does the warranty cover?',
        '10 years on the frame, 2 years on motor, battery and electronics.',
        '<p>The frame and rigid fork are covered for 10 years against manufacturing defects. The motor, battery, display, charger and connect module are covered for 2 years; the battery also keeps at least 70 % of its capacity for 2 years or 500 full charges.</p><p>Wear parts (tyres, brake pads, chain, cassette) and damage from falls or misuse are not covered. See Insurance and warranty in the app for the full terms.</p>',
      ],
      de_DE: [
        'Was deckt die Garantie ab?',
        '10 Jahre auf den Rahmen, 2 Jahre auf Motor, Akku und Elektronik.',
        '<p>Rahmen und Starrgabel sind 10 Jahre gegen Herstellungsfehler abgedeckt. Motor, Akku, Display, Ladegerät und Connect-Modul sind 2 Jahre abgedeckt; der Akku behält außerdem 2 Jahre oder 500 Vollladungen lang mindestens 70 % seiner Kapazität.</p><p>Verschleißteile (Reifen, Bremsbeläge, Kette, Kassette) und Schäden durch Stürze oder unsachgemäßen Gebrauch sind nicht abgedeckt. Die vollständigen Bedingungen finden Sie in der App unter Versicherung und Garantie.</p>',
      ],
      nl_NL: [
        'Wat dekt de garantie?',
        '10 jaar op het frame, 2 jaar op motor, accu en elektronica.',
        '<p>Het frame en de starre voorvork hebben 10 jaar garantie op fabricagefouten. Motor, accu, display, lader en connect-module hebben 2 jaar garantie; de accu houdt bovendien 2 jaar of 500 volledige laadbeurten minstens 70 % van zijn capaciteit.</p><p>Slijtdelen (banden, remblokken, ketting, cassette) en schade door vallen of verkeerd gebruik vallen niet onder de garantie. De volledige voorwaarden vind je in de app onder Verzekering en garantie.</p>',
      ],
      fr_FR: [
        'Que couvre la garantie ?',
        '10 ans sur le cadre, 2 ans sur le moteur, la batterie et l’électronique.',
        '<p>Le cadre et la fourche rigide sont garantis 10 ans contre les défauts de fabrication. Le moteur, la batterie, l’écran, le chargeur et le module connect sont garantis 2 ans ; la batterie conserve en outre au moins 70 % de sa capacité pendant 2 ans ou 500 charges complètes.</p><p>Les pièces d’usure (pneus, plaquettes de frein, chaîne, cassette) et les dommages dus à une chute ou à une mauvaise utilisation ne sont pas couverts. Consultez Assurance et garantie dans l’application pour les conditions complètes.</p>',
      ],
    },
  ],
  [
    'warranty',
    {
      en_US: [
        'Where can I have my bike serviced?',
        'At any Velo service centre or dealer; the app shows those near you.',
        '<p>Open Service in the app to see the service centres near you on a map, with their opening hours and whether they do repairs, test rides and warranty work. Book a time in the app, or call the centre.</p><p>Have your bike serviced once a year, or every 2,000 km, to keep the warranty on the motor.</p>',
      ],
      de_DE: [
        'Wo kann ich mein Rad warten lassen?',
        'Bei jedem Velo-Servicepartner oder Händler; die App zeigt die in Ihrer Nähe.',
        '<p>Öffnen Sie in der App Service, um die Servicepartner in Ihrer Nähe auf einer Karte zu sehen, mit Öffnungszeiten und ob sie Reparaturen, Probefahrten und Garantiearbeiten anbieten. Buchen Sie einen Termin in der App oder rufen Sie an.</p><p>Lassen Sie Ihr Rad einmal im Jahr oder alle 2.000 km warten, damit die Garantie auf den Motor erhalten bleibt.</p>',
      ],
      nl_NL: [
        'Waar kan ik mijn fiets laten onderhouden?',
        'Bij elk Velo-servicepunt of elke dealer; de app toont die bij jou in de buurt.',
        '<p>Open Service in de app om de servicepunten bij jou in de buurt op een kaart te zien, met openingstijden en of ze reparaties, proefritten en garantiewerk doen. Maak een afspraak in de app of bel het servicepunt.</p><p>Laat je fiets eens per jaar of elke 2.000 km onderhouden om de garantie op de motor te behouden.</p>',
      ],
      fr_FR: [
        'Où faire entretenir mon vélo ?',
        'Dans n’importe quel centre de service ou chez un revendeur Velo ; l’application affiche ceux près de chez vous.',
        '<p>Ouvrez Service dans l’application pour voir sur une carte les centres de service près de chez vous, avec leurs horaires et s’ils assurent réparations, essais et interventions sous garantie. Réservez un créneau dans l’application ou appelez le centre.</p><p>Faites entretenir votre vélo une fois par an ou tous les 2 000 km pour conserver la garantie du moteur.</p>',
      ],
    },
  ],
]

// ---- Insurance and warranty policies

export interface PolicyText {
  type: 'insurance' | 'warranty'
  months: number
  country?: string
  disabled?: boolean
  link: string
  texts: Partial<Record<AppLanguage, readonly [title: string, content: string]>>
}

export const POLICIES: readonly PolicyText[] = [
  {
    type: 'warranty',
    months: 120,
    link: 'warranty/frame',
    texts: {
      en_US: [
        'Frame and fork warranty',
        '<p>Velo Europe B.V. warrants the frame and rigid fork of every Velo bike against defects in materials and workmanship for 10 years from the date of purchase, for the first owner and every later owner.</p><p>We repair or replace a defective frame free of charge; labour at a Velo service centre is included for the first 2 years. Keep your proof of purchase: if you bought the bike from a Velo dealer, the frame number in the app is enough.</p>',
      ],
      de_DE: [
        'Garantie auf Rahmen und Gabel',
        '<p>Velo Europe B.V. gewährt auf Rahmen und Starrgabel jedes Velo-Rades 10 Jahre Garantie ab Kaufdatum gegen Material- und Verarbeitungsfehler, für den Erstbesitzer und alle späteren Besitzer.</p><p>Einen defekten Rahmen reparieren oder ersetzen wir kostenlos; die Arbeitszeit bei einem Velo-Servicepartner ist in den ersten 2 Jahren inbegriffen. Bewahren Sie Ihren Kaufbeleg auf: Bei Kauf über einen Velo-Händler genügt die Rahmennummer in der App.</p>',
      ],
      nl_NL: [
        'Garantie op frame en voorvork',
        '<p>Velo Europe B.V. geeft 10 jaar garantie op het frame en de starre voorvork van elke Velo-fiets tegen materiaal- en fabricagefouten, vanaf de aankoopdatum, voor de eerste en elke volgende eigenaar.</p><p>Een defect frame repareren of vervangen wij kosteloos; het arbeidsloon bij een Velo-servicepunt is de eerste 2 jaar inbegrepen. Bewaar je aankoopbewijs: heb je de fiets bij een Velo-dealer gekocht, dan volstaat het framenummer in de app.</p>',
      ],
      fr_FR: [
        'Garantie du cadre et de la fourche',
        '<p>Velo Europe B.V. garantit le cadre et la fourche rigide de chaque vélo Velo contre les défauts de matériaux et de fabrication pendant 10 ans à compter de la date d’achat, pour le premier propriétaire comme pour les suivants.</p><p>Nous réparons ou remplaçons gratuitement un cadre défectueux ; la main-d’œuvre dans un centre de service Velo est comprise les 2 premières années. Conservez votre preuve d’achat : si vous avez acheté le vélo chez un revendeur Velo, le numéro de cadre dans l’application suffit.</p>',
      ],
    },
  },
  {
    type: 'warranty',
    months: 24,
    link: 'warranty/electronics',
    texts: {
      en_US: [
        'Motor, battery and electronics warranty',
        '<p>The motor, battery, display, charger and Velo connect module are covered for 2 years from the date of purchase. The battery is also guaranteed to keep at least 70 % of its capacity for 2 years or 500 full charge cycles, whichever comes first; the app shows its health under Bike › Battery.</p><p>Not covered: wear parts, damage from falls, water deeper than the bottom bracket, pressure washers, or repairs by anyone other than a Velo service centre.</p>',
      ],
      de_DE: [
        'Garantie auf Motor, Akku und Elektronik',
        '<p>Motor, Akku, Display, Ladegerät und Velo-Connect-Modul sind ab Kaufdatum 2 Jahre abgedeckt. Zudem garantieren wir, dass der Akku 2 Jahre oder 500 volle Ladezyklen lang – je nachdem, was zuerst eintritt – mindestens 70 % seiner Kapazität behält; die App zeigt seinen Zustand unter Rad › Akku.</p><p>Nicht abgedeckt: Verschleißteile, Sturzschäden, Wasser über Tretlagerhöhe, Hochdruckreiniger oder Reparaturen, die nicht von einem Velo-Servicepartner ausgeführt wurden.</p>',
      ],
      nl_NL: [
        'Garantie op motor, accu en elektronica',
        '<p>Motor, accu, display, lader en Velo connect-module hebben 2 jaar garantie vanaf de aankoopdatum. Daarnaast garanderen wij dat de accu 2 jaar of 500 volledige laadcycli – wat het eerst komt – minstens 70 % van zijn capaciteit houdt; de app toont de conditie onder Fiets › Accu.</p><p>Niet gedekt: slijtdelen, valschade, water hoger dan de trapas, hogedrukreinigers of reparaties die niet door een Velo-servicepunt zijn uitgevoerd.</p>',
      ],
      fr_FR: [
        'Garantie du moteur, de la batterie et de l’électronique',
        '<p>Le moteur, la batterie, l’écran, le chargeur et le module Velo connect sont garantis 2 ans à compter de la date d’achat. Nous garantissons en outre que la batterie conserve au moins 70 % de sa capacité pendant 2 ans ou 500 cycles de charge complets, selon la première échéance ; l’application affiche son état sous Vélo › Batterie.</p><p>Ne sont pas couverts : les pièces d’usure, les dommages dus à une chute, à une immersion au-dessus du boîtier de pédalier ou au nettoyeur haute pression, ni les réparations effectuées ailleurs que dans un centre de service Velo.</p>',
      ],
    },
  },
  {
    type: 'insurance',
    months: 36,
    country: 'NL',
    link: 'verzekering',
    texts: {
      nl_NL: [
        'Velo Fietsverzekering',
        '<p>Verzeker je nieuwe Velo 3 jaar lang tegen diefstal en schade, inclusief accu en connect-module. Bij diefstal krijg je in het eerste jaar de volledige nieuwwaarde vergoed, daarna de dagwaarde; het eigen risico is € 50.</p><p>Voorwaarde: de fiets staat op slot met een ART-2-slot en de connect-module staat aan. Afsluiten kan binnen 30 dagen na aankoop via de app.</p>',
      ],
    },
  },
  {
    type: 'insurance',
    months: 24,
    country: 'BE',
    link: 'verzekering-belgie',
    texts: {
      nl_NL: ['Velo Fietsverzekering België', '<p>Verzeker je Velo in België 2 jaar lang tegen diefstal en materiële schade, in samenwerking met een Belgische verzekeraar. Het eigen risico is € 75.</p>'],
      fr_FR: ['Assurance vélo Velo Belgique', '<p>Assurez votre Velo en Belgique contre le vol et les dommages matériels pendant 2 ans, en partenariat avec un assureur belge. La franchise est de 75 €.</p>'],
    },
  },
  {
    type: 'insurance',
    months: 12,
    country: 'DE',
    link: 'versicherung',
    texts: {
      de_DE: [
        'Velo E-Bike-Versicherung',
        '<p>Schützt Ihr Velo gegen Diebstahl, Vandalismus, Sturz- und Elektronikschäden, europaweit und rund um die Uhr. Jahresbeitrag ab 89 €, ohne Selbstbeteiligung bei Diebstahl, wenn das Rad mit einem Schloss an einem festen Gegenstand angeschlossen war.</p><p>Abschluss in der App innerhalb von 6 Monaten nach dem Kauf.</p>',
      ],
    },
  },
  {
    type: 'insurance',
    months: 12,
    country: 'AT',
    disabled: true,
    link: 'versicherung-oesterreich',
    texts: { de_DE: ['Velo Versicherung Österreich (eingestellt)', '<p>Dieses Angebot wird nicht mehr verkauft. Bestehende Verträge laufen bis zu ihrem Ende weiter.</p>'] },
  },
  {
    type: 'insurance',
    months: 12,
    country: 'FR',
    link: 'assurance',
    texts: {
      fr_FR: [
        'Assurance vol et casse Velo',
        '<p>Protège votre Velo contre le vol, y compris le vol de la batterie, et la casse accidentelle, en France et dans toute l’Europe. Indemnisation à la valeur d’achat la première année ; franchise de 10 % du prix du vélo.</p><p>Le vélo doit être marqué et attaché à un point fixe avec un antivol agréé.</p>',
      ],
    },
  },
  {
    type: 'insurance',
    months: 12,
    country: 'GB',
    link: 'insurance-uk',
    texts: {
      en_US: [
        'Velo Cycle Insurance (UK)',
        '<p>Cover for theft, accidental damage and third-party liability up to £2,000,000, anywhere in the UK and for up to 60 days abroad. Excess £50; new for old for bikes under three years old.</p><p>When left unattended, your bike must be locked to an immovable object with a Sold Secure Gold lock.</p>',
      ],
    },
  },
]

// ---- User help

export const MANUAL_TITLE: Text4 = { en_US: '{model} user manual', de_DE: 'Bedienungsanleitung {model}', nl_NL: 'Handleiding {model}', fr_FR: 'Manuel d’utilisation {model}' }
/** What the placeholder PDF says it stands in for. */
export const MANUAL_NOTE: Text4 = {
  en_US: 'Demo data: this page stands in for the user manual.',
  de_DE: 'Demodaten: Diese Seite steht fuer die Bedienungsanleitung.',
  nl_NL: 'Demogegevens: deze pagina staat voor de handleiding.',
  fr_FR: "Donnees de demonstration : cette page remplace le manuel d'utilisation.",
}

/** [slug, model code (none: every model), seconds, titles] */
export const VIDEOS: readonly (readonly [string, string | null, number, Text4])[] = [
  ['charging', null, 154, { en_US: 'Charging the battery', de_DE: 'Akku laden', nl_NL: 'De accu opladen', fr_FR: 'Charger la batterie' }],
  ['saddle-height', null, 118, { en_US: 'Adjusting the saddle height', de_DE: 'Sattelhöhe einstellen', nl_NL: 'Zadelhoogte instellen', fr_FR: 'Régler la hauteur de selle' }],
  ['bluetooth-pairing', null, 96, { en_US: 'Pairing your bike over Bluetooth', de_DE: 'Rad per Bluetooth koppeln', nl_NL: 'Je fiets koppelen via Bluetooth', fr_FR: 'Associer votre vélo en Bluetooth' }],
  ['folding', 'FLD', 75, { en_US: 'Folding the Velo Fold', de_DE: 'Velo Fold zusammenklappen', nl_NL: 'De Velo Fold vouwen', fr_FR: 'Plier le Velo Fold' }],
  ['child-seats', 'HAU', 212, { en_US: 'Fitting child seats on the Velo Haul', de_DE: 'Kindersitze am Velo Haul montieren', nl_NL: 'Kinderzitjes monteren op de Velo Haul', fr_FR: 'Installer des sièges enfant sur le Velo Haul' }],
  ['suspension-sag', 'RDG', 188, { en_US: 'Setting the suspension sag of the Velo Ridge', de_DE: 'Negativfederweg am Velo Ridge einstellen', nl_NL: 'De sag van de vering instellen op de Velo Ridge', fr_FR: 'Régler le sag de la suspension du Velo Ridge' }],
]

// ---- App error codes: [code, level, type, description, solution]

export const ERROR_CODES: readonly (readonly [string, 'info' | 'warning' | 'error' | 'critical', 'app' | 'bike' | 'bluetooth' | 'network' | 'account', string, string, disabled?: boolean])[] = [
  ['APP-1001', 'critical', 'app', 'This version of the app is no longer supported.', 'Update the Velo app from the App Store or Google Play.'],
  ['APP-1002', 'warning', 'app', 'Not enough free storage to save the ride.', 'Free at least 50 MB on your phone; the ride is kept in memory until then.'],
  ['APP-1003', 'warning', 'app', 'Location access is off, so the ride has no route.', 'Allow location access for the Velo app in your phone’s settings (While using the app).'],
  ['APP-1004', 'info', 'app', 'Notifications are turned off.', 'Turn on notifications for the Velo app to get theft alarms and messages.'],
  ['APP-1005', 'warning', 'app', 'The ride could not be uploaded yet.', 'Nothing to do: the app tries again when the connection is back. Keep the app installed until the ride appears in your history.'],
  ['APP-1006', 'info', 'app', 'The old map provider is no longer available.', 'Update the app to use the new maps.', true],
  ['ACC-2001', 'error', 'account', 'The e-mail address or password is not correct.', 'Check both and try again, or tap Forgot password to set a new one.'],
  ['ACC-2002', 'error', 'account', 'This account has been disabled.', 'Contact the Velo service desk from the help centre; we tell you why and how to enable it again.'],
  ['ACC-2003', 'info', 'account', 'You have been signed out.', 'Sign in again. For your security, sessions end after 30 days without use.'],
  ['ACC-2004', 'warning', 'account', 'Your e-mail address is not confirmed yet.', 'Open the confirmation e-mail we sent you, or request a new one from your profile.'],
  ['ACC-2005', 'error', 'account', 'Too many sign-in attempts.', 'Wait ten minutes before you try again, or reset your password.'],
  ['ACC-2006', 'warning', 'account', 'An updated agreement needs your consent.', 'Read the updated agreement and accept it to continue using the app.'],
  ['NET-3001', 'warning', 'network', 'No internet connection.', 'Check mobile data or Wi-Fi. Riding and unlocking over Bluetooth still work offline.'],
  ['NET-3002', 'warning', 'network', 'The server did not answer in time.', 'Try again in a moment. If it keeps happening, check whether a VPN or firewall blocks the app.'],
  ['NET-3003', 'info', 'network', 'Velo services are being maintained.', 'Try again later; maintenance usually takes less than an hour and is announced in the app.'],
  ['NET-3004', 'error', 'network', 'A secure connection could not be made.', 'Set your phone’s date and time to automatic, then try again.'],
  ['BLE-4001', 'warning', 'bluetooth', 'Bluetooth is turned off.', 'Turn on Bluetooth to unlock the bike and read its battery.'],
  ['BLE-4002', 'warning', 'bluetooth', 'The bike was not found nearby.', 'Switch the bike on and stay within 5 metres of it, then try again.'],
  ['BLE-4003', 'error', 'bluetooth', 'The bike is bound to another account.', 'Ask the owner to share the bike with you, or contact the service desk if you bought it second-hand.'],
  ['BLE-4004', 'error', 'bluetooth', 'The connection was lost during the firmware update.', 'Keep the phone next to the bike and start the update again; the bike keeps working on its previous firmware.'],
  ['BLE-4005', 'warning', 'bluetooth', 'The app may not use Bluetooth.', 'Allow Nearby devices (Android) or Bluetooth (iOS) for the Velo app in your phone’s settings.'],
  ['BLE-4006', 'error', 'bluetooth', 'The unlock key on this phone is out of date.', 'Connect to the internet once so the app can fetch a new key, then unlock again.'],
  ['BIK-5001', 'critical', 'bike', 'The battery is too hot.', 'Stop riding and let the battery cool down in the shade. Do not charge it until it has cooled down.'],
  ['BIK-5002', 'warning', 'bike', 'The battery is too cold to charge.', 'Bring the battery indoors and let it warm to room temperature before charging.'],
  ['BIK-5003', 'warning', 'bike', 'The motor is overheating; assistance is reduced.', 'Ride on a lower assistance level for a few minutes; full assistance returns when the motor has cooled down.'],
  ['BIK-5004', 'error', 'bike', 'No signal from the speed sensor.', 'Check that the spoke magnet is in place and lines up with the sensor on the chainstay. If it does, visit a service centre.'],
  ['BIK-5005', 'error', 'bike', 'The torque sensor needs calibrating.', 'Switch the bike off, take your feet off the pedals and switch it on again. If the error stays, visit a service centre.'],
  ['BIK-5006', 'critical', 'bike', 'The bike cannot communicate with the battery.', 'Take the battery out, check that the contacts are clean and dry, and put it back until it clicks. If the error stays, visit a service centre.'],
  ['BIK-5007', 'error', 'bike', 'The display lost its connection to the motor.', 'Switch the bike off and on again. If the error stays, have the display cable checked at a service centre.'],
  ['BIK-5008', 'warning', 'bike', 'The firmware update failed; the previous version was restored.', 'Try the update again with a charged battery (above 30 %) and the phone next to the bike.'],
  ['BIK-5009', 'error', 'bike', 'The charger reports a fault.', 'Unplug the charger, wait a minute and plug it in again. If its light stays red, stop using it and contact your dealer.'],
  ['BIK-5010', 'info', 'bike', 'The connect module has no mobile network.', 'Nothing to do: the bike reports again when it is back in coverage. Find my bike works over Bluetooth meanwhile.'],
  ['BIK-5011', 'info', 'bike', 'The bike’s GPS position is not available.', 'Move the bike out of a garage or cellar; the position updates once the sky is in view.'],
  ['BIK-5012', 'warning', 'bike', 'Battery low: assistance is limited.', 'Charge the battery. Below 5 % the motor stops assisting; lights keep working for at least two hours.'],
]

// ---- Service centres: [name, address, country, latitude, longitude, phone, opening hours, offers sales, repair, test ride, warranty, disabled?]

const WEEK = 'Mon–Fri 9:00–18:00, Sat 10:00–17:00'
const SHOP = 'Tue–Fri 9:30–18:00, Sat 9:30–17:00'
const STORE = 'Mon 12:00–18:00, Tue–Sat 10:00–18:00, Sun 12:00–17:00'

export const SERVICE_CENTRES: readonly (readonly [string, string, string, number, number, string, string, boolean, boolean, boolean, boolean, boolean?])[] = [
  ['Velo Brand Store Amsterdam', 'Overtoom 287, 1054 HW Amsterdam', 'NL', 52.3602, 4.8664, '+31 20 308 4410', STORE, true, true, true, true],
  ['Fietsenmaker Van der Linden', 'Twijnstraat 34, 3511 ZL Utrecht', 'NL', 52.0857, 5.1241, '+31 30 231 7765', SHOP, true, true, false, true],
  ['Velo Service Point Rotterdam', 'Nieuwe Binnenweg 212, 3021 GP Rotterdam', 'NL', 51.9139, 4.4617, '+31 10 436 2290', WEEK, false, true, false, true],
  ['Rijwielhandel Bakker', 'Oosterstraat 52, 9711 NV Groningen', 'NL', 53.2148, 6.57, '+31 50 312 8841', SHOP, true, true, true, false],
  ['E-Bike Centrum Eindhoven', 'Kruisstraat 66, 5612 CJ Eindhoven', 'NL', 51.4456, 5.4815, '+31 40 244 6120', WEEK, true, true, true, true],
  ['Velo Pop-up Utrecht Centraal', 'Stationshal 12, 3511 CE Utrecht', 'NL', 52.0894, 5.1101, '+31 30 760 1100', 'Closed since 1 October', true, false, true, false, true],
  ['Velo Store Berlin', 'Kastanienallee 41, 10435 Berlin', 'DE', 52.538, 13.4095, '+49 30 4403 8812', STORE, true, true, true, true],
  ['Radhaus Hamburg', 'Schulterblatt 88, 20357 Hamburg', 'DE', 53.5626, 9.9615, '+49 40 4321 7755', WEEK, true, true, true, false],
  ['Zweirad Huber', 'Fraunhoferstraße 21, 80469 München', 'DE', 48.1312, 11.5761, '+49 89 2011 4470', SHOP, true, true, false, true],
  ['E-Bike Werkstatt Köln', 'Venloer Straße 256, 50823 Köln', 'DE', 50.95, 6.928, '+49 221 5109 331', WEEK, false, true, false, true],
  ['Velo Partner Freiburg', 'Wilhelmstraße 15, 79098 Freiburg im Breisgau', 'DE', 47.996, 7.8446, '+49 761 3879 520', SHOP, true, true, true, true],
  ['Velo Store Antwerpen', 'Nationalestraat 120, 2000 Antwerpen', 'BE', 51.2152, 4.3987, '+32 3 225 40 18', STORE, true, true, true, true],
  ['Fietsen Claes', 'Overpoortstraat 60, 9000 Gent', 'BE', 51.0426, 3.7271, '+32 9 222 71 35', SHOP, true, true, false, false],
  ['Vélo Service Bruxelles', 'Chaussée de Wavre 245, 1050 Ixelles', 'BE', 50.8361, 4.3768, '+32 2 513 64 90', WEEK, false, true, false, true],
  ['Velo Store Paris', '112 rue Oberkampf, 75011 Paris', 'FR', 48.866, 2.379, '+33 1 43 57 21 88', STORE, true, true, true, true],
  ['Cycles Croix-Rousse', '18 boulevard de la Croix-Rousse, 69004 Lyon', 'FR', 45.775, 4.829, '+33 4 78 28 63 15', SHOP, true, true, true, false],
  ['Atelier Vélo Strasbourg', '7 rue du Faubourg National, 67000 Strasbourg', 'FR', 48.5818, 7.739, '+33 3 88 32 45 70', WEEK, false, true, false, true],
  ['Cycles Atlantique', '24 quai de la Fosse, 44000 Nantes', 'FR', 47.211, -1.564, '+33 2 40 73 19 02', SHOP, true, true, false, true],
  ['Velo London Shoreditch', '96 Curtain Road, London EC2A 3AA', 'GB', 51.5254, -0.0803, '+44 20 7739 4410', STORE, true, true, true, true],
  ['Bristol E-Bike Centre', '41 Gloucester Road, Bristol BS7 8AD', 'GB', 51.4734, -2.5905, '+44 117 942 6630', WEEK, true, true, true, false],
  ['Velo København', 'Nørrebrogade 52, 2200 København N', 'DK', 55.6905, 12.556, '+45 33 12 80 44', WEEK, true, true, true, true],
  ['Radlager Wien', 'Neubaugasse 34, 1070 Wien', 'AT', 48.201, 16.349, '+43 1 523 61 90', SHOP, true, true, false, true],
  ['Velo Zürich', 'Langstrasse 120, 8004 Zürich', 'CH', 47.379, 8.527, '+41 44 242 18 30', WEEK, true, true, true, true],
  ['Cycles du Lac', 'Rue de Carouge 52, 1205 Genève', 'CH', 46.1944, 6.1444, '+41 22 320 45 61', SHOP, true, true, false, false],
  ['Velo Luxembourg', '45 avenue de la Gare, 1611 Luxembourg', 'LU', 49.605, 6.131, '+352 26 48 12 90', WEEK, true, true, true, true],
  ['Velo Stockholm', 'Götgatan 67, 116 21 Stockholm', 'SE', 59.3118, 18.074, '+46 8 640 22 15', WEEK, true, true, true, false],
  ['Velo Oslo', 'Thorvald Meyers gate 40, 0555 Oslo', 'NO', 59.923, 10.759, '+47 22 35 18 40', WEEK, true, true, false, true],
  ['Velo Dublin', '14 Camden Street Lower, Dublin 2, D02 XE80', 'IE', 53.335, -6.265, '+353 1 478 2290', WEEK, true, true, false, true],
  ['Velo Milano', 'Corso di Porta Ticinese 60, 20123 Milano', 'IT', 45.456, 9.182, '+39 02 8942 1155', SHOP, true, true, true, false],
  ['Velo Barcelona', 'Carrer de Girona 84, 08009 Barcelona', 'ES', 41.396, 2.168, '+34 932 45 67 80', SHOP, true, true, true, false],
  ['Velo San Francisco', '1320 Valencia Street, San Francisco, CA 94110', 'US', 37.752, -122.421, '+1 415-555-0142', STORE, true, true, true, true],
  ['Velo Seattle', '1521 11th Avenue, Seattle, WA 98122', 'US', 47.6145, -122.318, '+1 206-555-0178', WEEK, true, true, false, true],
  ['Velo 上海静安服务中心', '上海市静安区愚园路 318 号', 'CN', 31.224, 121.44, '+86 21 6258 3301', 'Mon–Sun 10:00–21:00', true, true, true, true],
  ['Velo 深圳南山服务中心', '深圳市南山区科技南十二路 18 号', 'CN', 22.531, 113.947, '+86 755 2655 8120', 'Mon–Sun 10:00–21:00', false, true, false, true],
  ['Velo 台北大安服務中心', '台北市大安區復興南路一段 219 號', 'TW', 25.038, 121.544, '+886 2 2771 5820', 'Mon–Sun 11:00–21:30', true, true, true, true],
  ['Velo 台中服務中心', '台中市西區公益路 155 號', 'TW', 24.151, 120.664, '+886 4 2301 7722', 'Tue–Sun 11:00–20:00', true, true, false, true],
]

/**
 * CSV statements as banks write them (fixtures written here, shaped like each kind of export):
 * the sign in a direction column, pending rows, headers ending in a delimiter, headerless files by
 * column number, summary lines, bank layouts recognised without `columns`, and `columns`
 * overriding a layout; refusals name the line, what was found and the argument that fixes it.
 */
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/statement-refusal.js';
import { parseStatement } from '../../src/statements/index.js';

type Columns = Parameters<typeof parseStatement>[0]['columns'];
const read = (content: string, columns?: Columns) => parseStatement({ content, columns });
const refusal = (content: string, columns?: Columns) => refusalOf(() => read(content, columns));
const money = (content: string, columns?: Columns) => read(content, columns).rows.map((r) => [r.date, r.amount, r.payee, r.pending ?? false]);

describe('direction columns', () => {
  it('reads Af/Bij beside an unsigned Bedrag (ING NL: YYYYMMDD, decimal commas)', () => {
    const s = read(
      '"Datum","Naam / Omschrijving","Rekening","Tegenrekening","Code","Af Bij","Bedrag (EUR)","Mutatiesoort","Mededelingen"\n' +
        '"20240213","Albert Heijn","NL00INGB0000000001","","BA","Af","41,25","Betaalautomaat","Pas 1"\n' +
        '"20240214","Werkgever BV","NL00INGB0000000001","NL00RABO0000000002","GT","Bij","1.500,00","Overschrijving","Salaris"\n',
    );
    expect(s.rows.map((r) => [r.date, r.amount, r.payee, r.memo])).toEqual([
      ['2024-02-13', -41_250, 'Albert Heijn', 'Pas 1'],
      ['2024-02-14', 1_500_000, 'Werkgever BV', 'Salaris'],
    ]);
    expect(s.decisions.join(' ')).toMatch(/signed by column "af bij": Af money out, Bij money in/);
  });

  it('reads D/C in a CreditDebet column below an account line (Knab: DD-MM-YYYY)', () => {
    expect(
      money(
        'KNAB EXPORT;;;;;;\nRekeningnummer;Transactiedatum;Valutacode;CreditDebet;Bedrag;Tegenrekeninghouder;Omschrijving;\n' +
          '"NL00KNAB0000000001";"21-06-2019";"EUR";"D";"827,75";"Jan Jansen";"Huur";\n"NL00KNAB0000000001";"24-06-2019";"EUR";"C";"10,00";"Piet";"Terug";\n',
      ),
    ).toEqual([
      ['2019-06-21', -827_750, 'Jan Jansen', false],
      ['2019-06-24', 10_000, 'Piet', false],
    ]);
  });

  it('reads DBIT/CRDT, S/H under a blank header, -/+, and Debit/Credit in a Transaction Type column', () => {
    const rows = (content: string) => read(content).rows.map((r) => r.amount);
    expect(rows('Date,Description,Amount,CdtDbtInd\n2024-01-02,Shop,12.00,DBIT\n2024-01-03,Pay,20.00,CRDT\n')).toEqual([-12_000, 20_000]);
    expect(rows('Buchungstag;Empfänger;Umsatz;\n02.01.2024;Laden;12,00;S\n03.01.2024;Lohn;20,00;H\n')).toEqual([-12_000, 20_000]);
    expect(rows('Date;Description;Amount;+/-\n2024-01-02;Shop;12,00;-\n2024-01-03;Pay;20,00;+\n')).toEqual([-12_000, 20_000]);
    expect(
      rows('Transaction Date,Transaction Description,Transaction Type,Transaction Amount\n01/15/24,Shop,Debit,12.00\n01/16/24,Pay,Credit,20.00\n'),
    ).toEqual([-12_000, 20_000]);
  });

  it('leaves a Type column of kinds (not debit/credit words) alone: the amounts keep their signs', () => {
    expect(read('Date,Type,Description,Amount\n2024-01-02,DEBIT_CARD,Shop,-12.00\n2024-01-03,C,Pay,20.00\n').rows.map((r) => r.amount)).toEqual([
      -12_000, 20_000,
    ]);
  });

  it('takes columns.direction with the values it names, also by number in a headerless file', () => {
    const file = 'Date;Payee;Amount;Kind\n2024-01-02;Shop;12,00;U\n2024-01-03;Pay;20,00;B\n';
    expect(read(file, { direction: 'Kind:U/B' }).rows.map((r) => r.amount)).toEqual([-12_000, 20_000]);
    expect(
      read('2024-01-02;Shop;12,00;U\n2024-01-03;Pay;20,00;B\n', { date: '1', payee: '2', amount: '3', direction: '4:U/B' }).rows.map((r) => r.amount),
    ).toEqual([-12_000, 20_000]);
    expect(refusal(file, { direction: 'Kind' })).toMatch(
      /^line 2: found "U" in column "Kind"; expected one of columns\.direction.*give columns\.direction "Kind:<debit values>\/<credit values>"/,
    );
  });

  it('finds T/J (Hungarian terhelés/jóváírás) in a headerless file read by column number, dates ending in a dot', () => {
    const file = '"11773016";"T";"4990";"HUF";"2024.01.15.";"SPAR"\n"11773016";"J";"150000";"HUF";"2024.01.16.";"MUNKABER"\n';
    expect(money(file, { date: '5', amount: '3', payee: '6' })).toEqual([
      ['2024-01-15', -4_990_000, 'SPAR', false],
      ['2024-01-16', 150_000_000, 'MUNKABER', false],
    ]);
  });

  it('refuses a direction column whose values it does not know, naming the line, the value and columns.direction', () => {
    // Amounts with their own minus: the column is not needed, so not refused.
    expect(read('Datum;Naam;Umsatztyp;Bedrag\n20240101;A;Lastschrift;-1,00\n').rows[0]!.amount).toBe(-1000);
    expect(refusal('Datum;Naam;Af Bij;Bedrag\n20240101;A;Uit;1,00\n')).toMatch(
      /^line 2: found "Uit" in column "af bij"; expected a known debit or credit mark.*columns\.direction "af bij:<debit values>\/<credit values>"/,
    );
  });
});

describe('amounts that are all positive', () => {
  it('are refused in a card export with no sign column, naming columns.amount_sign; read once it is given', () => {
    const file = 'Date,Card No.,Description,Amount\n2024-01-02,1234,Shop,12.00\n2024-01-03,1234,Cafe,3.00\n';
    expect(refusal(file)).toMatch(/^line 2: found every amount positive .*card statement \(column "card no\."\).*columns\.amount_sign/);
    expect(read(file, { amount_sign: 'outflow-positive' }).rows.map((r) => r.amount)).toEqual([-12_000, -3_000]);
  });

  it('are refused where the balance falls, which money in cannot do', () => {
    expect(refusal('Date,Description,Amount,Balance\n2024-01-02,Shop,12.00,88.00\n2024-01-03,Pay,20.00,108.00\n2024-01-04,Cafe,3.00,105.00\n')).toMatch(
      /^line 4: found every amount positive, but the balance falls .*columns\.amount_sign.*columns\.direction/,
    );
  });

  it('are read as money in where nothing says otherwise, and the preview says so', () => {
    const s = read('Date,Description,Amount\n2024-01-02,Interest,1.00\n2024-01-03,Transfer in,2.00\n');
    expect(s.rows.map((r) => r.amount)).toEqual([1000, 2000]);
    expect(s.decisions.join(' ')).toMatch(/every amount is positive .* read as money in/);
  });
});

describe('pending rows', () => {
  it('marks rows by a status column in any of its names and values', () => {
    const pending = (content: string) => read(content).rows.map((r) => r.pending ?? false);
    expect(pending('Status,Date,Description,Debit,Credit\nCleared,01/15/2024,A,1.00,\nPending,01/16/2024,B,2.00,\n')).toEqual([false, true]);
    expect(pending('Buchungstag;Buchungsstatus;Empfänger;Betrag\n02.01.2024;Gebucht;A;-1,00\n03.01.2024;Vorgemerkt;B;-2,00\n')).toEqual([false, true]);
    expect(pending('Date,Description,Amount,State\n2024-01-02,A,-1.00,COMPLETED\n2024-01-03,B,-2.00,AUTHORISED\n')).toEqual([false, true]);
  });

  it('marks a row whose booking date is blank beside the date it was made, dated by that date', () => {
    expect(
      money('Started Date,Completed Date,Description,Amount,State\n2024-01-02 10:00:00,2024-01-03 09:00:00,A,-1.00,COMPLETED\n2024-01-04 11:00:00,,B,-2.00,\n'),
    ).toEqual([
      ['2024-01-03', -1000, 'A', false],
      ['2024-01-04', -2000, 'B', true],
    ]);
  });

  it('takes a long text in an Info column for text, not a status', () => {
    expect(read('Date,Description,Amount,Info\n2024-01-02,A,-1.00,Authorisation code 123456 at the terminal of the shop\n').rows[0]!.pending).toBeUndefined();
  });

  it('takes columns.status with its own pending values', () => {
    const file = 'Date,Description,Amount,Flag\n2024-01-02,A,-1.00,ok\n2024-01-03,B,-2.00,open\n';
    expect(read(file).rows.map((r) => r.pending ?? false)).toEqual([false, false]);
    expect(read(file, { status: 'Flag:open' }).rows.map((r) => r.pending ?? false)).toEqual([false, true]);
  });
});

describe('CSV as exported', () => {
  it('reads a header ending in a delimiter above rows one cell narrower (Lloyds)', () => {
    expect(
      money(
        'Transaction Date,Transaction Type,Sort Code,Account Number,Transaction Description,Debit Amount,Credit Amount,Balance,\n' +
          "15/01/2024,DEB,'11-22-33,12345678,SHOP,8.99,,2040.59\n01/12/2023,FPI,'11-22-33,12345678,SALARY,,2000,2049.58\n",
      ),
    ).toEqual([
      ['2024-01-15', -8_990, 'SHOP', false],
      ['2023-12-01', 2_000_000, 'SALARY', false],
    ]);
  });

  it('reads a headerless file by column number whatever the width of its rows', () => {
    // Columns 4 and 5 are not read: the rows are wider than the last column named.
    const s = read('"01/15/2024","-12.34","SHOP ONE","*",""\n"01/16/2024","20.00","PAYROLL","*","1001"\n', { date: '1', amount: '2', payee: '3' });
    expect(s.rows.map((r) => [r.date, r.amount, r.payee])).toEqual([
      ['2024-01-15', -12_340, 'SHOP ONE'],
      ['2024-01-16', 20_000, 'PAYROLL'],
    ]);
  });

  it('leaves out summary lines after the last row, and reads a balance line with no amount as zero', () => {
    const s = read(
      'Buchungstag;Wert;Umsatzart;Begünstigter / Auftraggeber;Verwendungszweck;Soll;Haben;Währung\n02.01.2024;02.01.2024;Kartenzahlung;Laden;x;-12,00;;EUR\nKontostand;31.01.2024;;;1.234,56;EUR\n',
    );
    expect(s.rows.map((r) => [r.date, r.amount, r.payee])).toEqual([['2024-01-02', -12_000, 'Laden']]);
    expect(s.decisions.join(' ')).toMatch(/line\(s\) 3 after the last row skipped/);
    const bofa = read('Date,Description,Amount,Running Bal.\n01/01/2024,Beginning balance as of 01/01/2024,,"1,000.00"\n01/15/2024,SHOP,-12.00,988.00\n');
    expect(bofa.rows.map((r) => r.amount)).toEqual([0, -12_000]);
  });

  it('still refuses a row with more cells than its header names, saying what would fix it', () => {
    expect(refusal('Date,Description,Amount\n2024-01-01,A,1,extra\n')).toMatch(
      /^line 2: found 4 cells .*expected 3, as the header on line 1 names.*columns by 1-based number/,
    );
  });
});

/** One row of each bank's export, as its header and one line; what the row must read as. */
const BANKS: [bank: string, file: string, row: [string, number, string, boolean]][] = [
  [
    'Revolut',
    'Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\nCARD_PAYMENT,Current,2024-01-02 10:00:00,2024-01-03 09:00:00,Cafe,-10.00,0.50,EUR,COMPLETED,89.50\n',
    ['2024-01-03', -10_500, 'Cafe', false],
  ],
  [
    'N26',
    '"Booking Date","Value Date","Partner Name","Partner Iban",Type,"Payment Reference","Account Name","Amount (EUR)"\n2024-01-02,,"Shop",DE00,"Presentment",,"Main",-5.00\n',
    ['2024-01-02', -5_000, 'Shop', false],
  ],
  [
    'ING ES',
    'F. VALOR,CATEGORÍA,SUBCATEGORÍA,DESCRIPCIÓN,COMENTARIO,IMAGEN,IMPORTE (€),SALDO (€)\n24/03/2022,Compras,Otros,Pago en TIENDA,,No,-17.60,1852.43\n',
    ['2022-03-24', -17_600, 'Pago en TIENDA', false],
  ],
  [
    'PC Financial Mastercard',
    '"Merchant Name","Card Used For Transaction","Date","Time","Amount"\n"Mobil","**** 1234","01/10/2019","06:50 PM","36.33"\n',
    ['2019-01-10', -36_330, 'Mobil', false],
  ],
  [
    'UBS (CH, French)',
    "Produit;Monn.;Description;Date de valeur;Description 1;Description 2;Description 3;N° de transaction;Débit;Crédit;Solde\n0123;CHF;Compte personnel;28.02.2019;Virement postal;ASSOCIATION;GENEVE;345;;240.00;11'613.94\n",
    ['2019-02-28', 240_000, 'ASSOCIATION', false],
  ],
  [
    'ING DE',
    'Umsatzanzeige;Datei erstellt am: 01.02.2024\n\nIBAN;DE00 0000\nKontoname;Girokonto\n\nBuchung;Valuta;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Saldo;Währung;Betrag;Währung\n03.01.2024;03.01.2024;REWE;Lastschrift;Einkauf;1.234,56;EUR;-12,34;EUR\n',
    ['2024-01-03', -12_340, 'REWE', false],
  ],
  [
    'Payoneer',
    'Transaction Date,Transaction Time,Time Zone,Transaction ID,Description,Credit Amount,Debit Amount,Currency,Status,Running Balance\n05/03/2021,12:31:46,UTC,123,Payment,,100,USD,Completed,200\n',
    ['2021-05-03', -100_000, 'Payment', false],
  ],
  [
    'Sparkasse',
    '"Auftragskonto";"Buchungstag";"Valutadatum";"Buchungstext";"Verwendungszweck";"Beguenstigter/Zahlungspflichtiger";"Kontonummer/IBAN";"Betrag";"Waehrung";"Info"\n"DE00";"03.01.24";"03.01.24";"KARTENZAHLUNG";"x";"EDEKA";"DE01";"-3,10";"EUR";"Umsatz vorgemerkt"\n',
    ['2024-01-03', -3_100, 'EDEKA', true],
  ],
  [
    'DKB',
    '"Buchungsdatum";"Wertstellung";"Status";"Zahlungspflichtige*r";"Zahlungsempfänger*in";"Verwendungszweck";"Umsatztyp";"IBAN";"Betrag (€)"\n"03.01.24";"03.01.24";"Gebucht";"Arbeitgeber GmbH";"Max Muster";"Lohn";"Eingang";"DE00";"2.000,00"\n',
    ['2024-01-03', 2_000_000, 'Arbeitgeber GmbH', false],
  ],
  [
    'DKB (before 2023)',
    '"Buchungstag";"Wertstellung";"Buchungstext";"Auftraggeber / Begünstigter";"Verwendungszweck";"Kontonummer";"BLZ";"Betrag (EUR)";\n"03.01.2024";"03.01.2024";"Lastschrift";"Stadtwerke";"Strom";"DE00";"";"-45,00";\n',
    ['2024-01-03', -45_000, 'Stadtwerke', false],
  ],
  [
    'Commerzbank',
    'Buchungstag;Wertstellung;Umsatzart;Buchungstext;Betrag;Währung;Auftraggeberkonto;Bankleitzahl Auftraggeberkonto;IBAN Auftraggeberkonto;Kategorie\n03.01.2024;03.01.2024;Lastschrift;Telekom Rechnung;-39,95;EUR;;;;Telefon\n',
    ['2024-01-03', -39_950, 'Telekom Rechnung', false],
  ],
  [
    'comdirect',
    '"Umsätze Girokonto";"Zeitraum: 30 Tage";\n\n"Buchungstag";"Wertstellung (Valuta)";"Vorgang";"Buchungstext";"Umsatz in EUR";\n"offen";"--";"Lastschrift";"Auftraggeber: Shop";"-9,99";\n"03.01.2024";"03.01.2024";"Lastschrift";"Auftraggeber: Bäcker";"-2,50";\n',
    ['2024-01-03', -9_990, 'Auftraggeber: Shop', true],
  ],
  [
    'Postbank',
    'Buchungstag;Wert;Umsatzart;Buchungsdetails;Auftraggeber;Empfänger;Betrag (€);Saldo (€)\n03.01.2024;03.01.2024;Gutschrift;Lohn;Firma AG;Max;1.000,00;2.000,00\n',
    ['2024-01-03', 1_000_000, 'Firma AG', false],
  ],
  [
    'Rabobank',
    '"IBAN/BBAN","Munt","BIC","Volgnr","Datum","Rentedatum","Bedrag","Saldo na trn","Tegenrekening IBAN/BBAN","Naam tegenpartij","Omschrijving-1"\n"NL00RABO","EUR","RABONL2U","000000000000001","2024-01-03","2024-01-03","-2,50","100,00","NL01","Bakker","Brood"\n',
    ['2024-01-03', -2_500, 'Bakker', false],
  ],
  [
    'Capital One 360',
    'Account Number,Transaction Description,Transaction Date,Transaction Type,Transaction Amount,Balance\n1234,Coffee,01/15/24,Debit,4.50,95.50\n',
    ['2024-01-15', -4_500, 'Coffee', false],
  ],
  ['American Express', 'Date,Description,Card Member,Account #,Amount\n01/15/2024,GROCERY,J DOE,-1001,54.20\n', ['2024-01-15', -54_200, 'GROCERY', false]],
  ['Barclays (UK)', 'Number,Date,Account,Amount,Subcategory,Memo\n,03/01/2024,20-00-00 1234,-9.99,Debit,NETFLIX\n', ['2024-01-03', -9_990, 'NETFLIX', false]],
  [
    'Monzo',
    'Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency,Notes and #tags,Address,Receipt,Description\ntx_1,03/01/2024,10:00:00,Card payment,Pret A Manger,,Eating out,-4.10,GBP,-4.10,GBP,,,,PRET A MANGER LONDON\n',
    ['2024-01-03', -4_100, 'Pret A Manger', false],
  ],
  [
    'Starling',
    'Date,Counter Party,Reference,Type,Amount (GBP),Balance (GBP),Spending Category,Notes\n03/01/2024,Tesco,TESCO STORES 1234,CARD,-12.00,88.00,GROCERIES,\n',
    ['2024-01-03', -12_000, 'Tesco', false],
  ],
  [
    'NatWest',
    'Date, Type, Description, Value, Balance, Account Name, Account Number\n14/01/2024,D/D,"COUNCIL TAX",-120.00,880.00,"Current","123"\n',
    ['2024-01-14', -120_000, 'COUNCIL TAX', false],
  ],
  [
    'Crédit Agricole',
    'Date;Libellé;Débit euros;Crédit euros;\n03/01/2024;"CARTE X1234 SUPERMARCHE";25,40;;\n',
    ['2024-01-03', -25_400, 'CARTE X1234 SUPERMARCHE', false],
  ],
  [
    'Société Générale',
    "=\"0001\";Solde au 31/01/2024;1 000,00 EUR\n\nDate de l'opération;Libellé;Détail de l'écriture;Montant de l'opération;Devise\n03/01/2024;CARTE X1234;CARTE X1234 03/01 BOULANGERIE;-4,20;EUR\n",
    ['2024-01-03', -4_200, 'CARTE X1234', false],
  ],
  [
    "Caisse d'Epargne",
    'Date de comptabilisation;Libelle simplifie;Libelle operation;Reference;Informations complementaires;Type operation;Categorie;Sous categorie;Debit;Credit;Date operation;Date de valeur\n03/01/2024;BOULANGERIE;CB BOULANGERIE;ref;;Carte;Alimentation;Boulangerie;-4,20;;02/01/2024;03/01/2024\n',
    ['2024-01-03', -4_200, 'BOULANGERIE', false],
  ],
  [
    'Boursorama',
    'dateOp;dateVal;label;category;categoryParent;supplierFound;amount;comment;accountNum;accountLabel;accountbalance\n2024-01-03;2024-01-03;"CARTE 02/01/24 FNAC";"Loisirs";"Loisirs";"fnac";-29,99;;0001;"Compte";1000,00\n',
    ['2024-01-03', -29_990, 'CARTE 02/01/24 FNAC', false],
  ],
  [
    'CaixaBank / Santander (ES)',
    'Fecha;Fecha valor;Concepto;Importe;Saldo\n03/01/2024;03/01/2024;COMPRA TARJ. MERCADONA;-23,45;976,55\n',
    ['2024-01-03', -23_450, 'COMPRA TARJ. MERCADONA', false],
  ],
];

describe('bank exports recognised without columns', () => {
  it.each(BANKS)('%s', (_bank, file, row) => {
    const rows = read(file).rows;
    expect([rows[0]!.date, rows[0]!.amount, rows[0]!.payee, rows[0]!.pending ?? false]).toEqual(row);
  });

  it('lets columns override a layout that reads a file wrong (a bank changed its export)', () => {
    // A PC Financial file whose charges now come negative: the layout says positive is money out.
    const file = '"Merchant Name","Card Used For Transaction","Date","Time","Amount"\n"Mobil","**** 1234","01/10/2019","06:50 PM","-36.33"\n';
    expect(read(file).rows[0]!.amount).toBe(36_330);
    expect(read(file, { amount_sign: 'outflow-negative' }).rows[0]!.amount).toBe(-36_330);
    // A Barclays file whose payee moved to another column, its dates month-first.
    const moved = 'Number,Date,Account,Amount,Subcategory,Memo,Merchant\n,01/03/2024,20-00-00 1234,-9.99,Debit,x,NETFLIX\n';
    expect(read(moved, { payee: 'Merchant', date_format: 'MM/DD/YYYY' }).rows[0]).toMatchObject({ date: '2024-01-03', payee: 'NETFLIX' });
  });
});

describe('CSV refusals', () => {
  it.each([
    ['no header', 'hello,world\n1,2\n', undefined, /^line 1: found no header row .*\(it reads "hello \| world"\).*give columns/],
    ['an amount that is not one', 'Date,Description,Amount\n2024-01-01,A,12x\n', undefined, /^line 2: found amount "12x"; expected .*give columns\.amount/],
    ['a date that is not one', 'Date,Description,Amount\nsoon,A,1\n', undefined, /^line 2: found "soon"; expected a date.*give columns\.date/],
    [
      'an impossible date',
      'Date,Description,Amount\n2024-01-01,A,1\n2024-02-31,B,2\n',
      undefined,
      /^line 3: found date "2024-02-31"; expected a real day written YYYY-MM-DD; to fix it, give columns\.date_format/,
    ],
    [
      'a column the header lacks',
      'Date,Description,Amount\n2024-01-01,A,1\n',
      { payee: 'Payee' },
      /^line 1: found a header with no cell "Payee" \(it has "date", "description", "amount"\); expected columns\.payee .*; to fix it, give columns\.payee/,
    ],
    [
      'a row missing a column read',
      'Date,Description,Amount\n2024-01-01,A\n',
      undefined,
      /^line 2: found 2 cells; expected at least 3: .*column 3 is read; to fix it, give columns/,
    ],
    ['a blank amount', 'Date,Description,Amount\n2024-01-01,A,\n', undefined, /^line 2: found a blank amount; .*give columns\.amount/],
  ] as const)('%s', (_what, file, columns, message) => {
    expect(refusal(file, columns as Columns)).toMatch(message);
  });
});

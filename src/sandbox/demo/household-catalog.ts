/**
 * What "Demo Household" (a couple in Portland, Oregon, renting in town and paying off a lake
 * cabin) budgets for and where it shops. Every goal type the API knows appears at least once.
 * Group order is display order; within the month's assignment it is also priority order.
 */
import type { GroupPlan, Merchant } from './catalog.js';

export const HOUSEHOLD_GROUPS: GroupPlan[] = [
  {
    name: 'Bills',
    action: 1,
    categories: [
      {
        key: 'rent',
        name: 'Rent',
        target: { kind: 'need', target: 1650, whole: true, day: 1 },
        note: 'Lease renews every August; ask about the parking spot.',
      },
      { key: 'electric', name: 'Electric', target: { kind: 'need', target: 140, whole: false } },
      { key: 'water', name: 'Water & Sewer', target: { kind: 'need', target: 60, whole: false } },
      { key: 'internet', name: 'Internet', target: { kind: 'monthly', target: 70 } },
      { key: 'phone', name: 'Phone', target: { kind: 'monthly', target: 85 } },
      { key: 'car_ins', name: 'Car Insurance', target: { kind: 'monthly', target: 140 }, note: 'GEICO, billed every three months.' },
      { key: 'home_ins', name: 'Home Insurance', target: { kind: 'monthly', target: 130 } },
      { key: 'subscriptions', name: 'Subscriptions', target: { kind: 'need', target: 40, whole: true } },
    ],
  },
  {
    name: 'Debt Payments',
    action: 1,
    categories: [
      {
        key: 'mortgage',
        name: 'Cabin Mortgage',
        target: { kind: 'debt', target: 1150, day: 5 },
        note: 'Columbia Bank loan on the lake cabin. Escrow covers the cabin insurance.',
      },
      { key: 'property_tax', name: 'Cabin Property Tax', target: { kind: 'yearly', target: 2400, due: '11-15' }, policy: 'goal' },
    ],
  },
  {
    name: 'Everyday Expenses',
    action: 1,
    categories: [
      {
        key: 'groceries',
        name: 'Groceries',
        target: { kind: 'need', target: 650, whole: false },
        note: 'Household items from the same receipt go to Household Supplies.',
        habitTarget: true,
      },
      { key: 'household', name: 'Household Supplies', target: { kind: 'need', target: 80, whole: false }, habitTarget: true },
      { key: 'dining', name: 'Dining Out', target: { kind: 'monthly', target: 150 }, policy: 'goal', habitTarget: true },
      { key: 'fuel', name: 'Fuel', target: { kind: 'need', target: 200, whole: false }, habitTarget: true },
      { key: 'coffee', name: 'Coffee', target: { kind: 'weekly', target: 8, weekday: 5 }, habitTarget: true },
      { key: 'fun', name: 'Fun Money', target: { kind: 'monthly', target: 30 }, policy: 'goal', habitTarget: true },
    ],
  },
  {
    name: 'Health & Family',
    action: 1,
    categories: [
      { key: 'medical', name: 'Medical', target: { kind: 'need', target: 100, whole: false }, habitTarget: true },
      { key: 'pets', name: 'Pet Care', target: { kind: 'need', target: 90, whole: false }, note: 'Biscuit: food, meds, the vet.', habitTarget: true },
      { key: 'clothing', name: 'Clothing' },
      { key: 'haircuts', name: 'Haircuts', target: { kind: 'monthly', target: 15 }, habitTarget: true },
    ],
  },
  {
    name: 'True Expenses',
    action: 2,
    categories: [
      { key: 'christmas', name: 'Christmas & Gifts', target: { kind: 'yearly', target: 1200, due: '12-15' }, policy: 'goal' },
      { key: 'car_reg', name: 'Car Registration', target: { kind: 'yearly', target: 180, due: '06-30' }, policy: 'goal' },
      { key: 'home_maint', name: 'Home Maintenance', target: { kind: 'balance', target: 2000 }, cap: 150, scales: true },
      { key: 'car_maint', name: 'Car Maintenance', target: { kind: 'balance', target: 1200 }, cap: 100, scales: true },
      { key: 'stuff', name: 'Stuff I Forgot to Budget For' },
    ],
  },
  {
    name: 'Quality of Life',
    action: 2,
    categories: [
      { key: 'gym', name: 'Gym Membership', note: 'Cancelled; we run outside now.' },
      { key: 'hobbies', name: 'Hobbies' },
      { key: 'charity', name: 'Charity', target: { kind: 'monthly', target: 50 } },
      { key: 'education', name: 'Education' },
    ],
  },
  {
    name: 'Savings Goals',
    action: 2,
    categories: [
      { key: 'emergency', name: 'Emergency Fund', target: { kind: 'balance', target: 10000 }, cap: 250, scales: true, note: 'Three months of essentials.' },
      { key: 'vacation', name: 'Vacation', target: { kind: 'byDate', target: 3500, monthsAhead: 8 }, targetFrom: 14 },
      { key: 'new_car', name: 'New Car', target: { kind: 'byDate', target: 15000, monthsAhead: 26 }, targetFrom: 6 },
      { key: 'rainy', name: 'Rainy Day Fund' },
    ],
  },
];

const PDX = (lat: string, lon: string): [string, string] => [lat, lon];

/** Everyday merchants; the fixed bills and their payees live in household-months.ts. */
export const HOUSEHOLD_MERCHANTS: Merchant[] = [
  {
    name: 'Safeway',
    category: 'groceries',
    min: 25,
    max: 160,
    weight: 7,
    pay: 'mixed',
    split: [
      { category: 'household', min: 5, max: 30 },
      { category: 'pets', min: 10, max: 40 },
    ],
    splitChance: 0.3,
    location: PDX('45.5122', '-122.6587'),
  },
  {
    name: "Trader Joe's",
    category: 'groceries',
    min: 20,
    max: 110,
    weight: 7,
    pay: 'card',
    memos: ['Weekly shop', 'Snacks', 'Party supplies'],
    location: PDX('45.5231', '-122.6819'),
  },
  { name: 'Whole Foods Market', category: 'groceries', min: 30, max: 140, weight: 3, pay: 'card' },
  {
    name: 'Costco',
    category: 'groceries',
    min: 80,
    max: 260,
    weight: 2,
    pay: 'card',
    split: [
      { category: 'household', min: 15, max: 60 },
      { category: 'clothing', min: 15, max: 50 },
      { category: 'pets', min: 20, max: 45 },
    ],
    splitChance: 0.5,
    location: PDX('45.4382', '-122.5661'),
  },
  {
    name: 'Fred Meyer',
    category: 'groceries',
    min: 30,
    max: 150,
    weight: 3,
    pay: 'checking',
    split: [{ category: 'household', min: 5, max: 40 }],
    splitChance: 0.35,
  },
  { name: 'New Seasons Market', category: 'groceries', min: 15, max: 90, weight: 3, pay: 'mixed' },
  {
    name: 'Target',
    category: 'household',
    min: 15,
    max: 90,
    weight: 3,
    pay: 'card',
    split: [
      { category: 'groceries', min: 10, max: 50 },
      { category: 'clothing', min: 10, max: 45 },
    ],
    splitChance: 0.4,
  },
  {
    name: 'Home Depot',
    category: 'home_maint',
    min: 15,
    max: 180,
    weight: 1.5,
    pay: 'card',
    memos: ['Paint for the hallway', 'Furnace filters', 'Garden hose'],
  },
  { name: 'Walgreens', category: 'medical', min: 8, max: 45, weight: 1.5, pay: 'mixed', split: [{ category: 'household', min: 4, max: 20 }], splitChance: 0.3 },
  { name: 'CVS Pharmacy', category: 'medical', min: 6, max: 40, weight: 1, pay: 'checking', memos: ['Prescription refill'] },
  { name: 'Chipotle', category: 'dining', min: 11, max: 28, weight: 3, pay: 'mixed' },
  { name: 'Lardo', category: 'dining', min: 12, max: 30, weight: 2, pay: 'card' },
  { name: 'Olive Garden', category: 'dining', min: 35, max: 90, weight: 1, pay: 'card', memos: ['Date night', 'Family dinner'] },
  { name: 'Thai Bloom', category: 'dining', min: 18, max: 55, weight: 1.5, pay: 'card' },
  { name: 'Sizzle Pie', category: 'dining', min: 12, max: 38, weight: 1.5, pay: 'mixed' },
  { name: 'DoorDash', category: 'dining', min: 22, max: 65, weight: 2.5, pay: 'card', memos: ['Too tired to cook', 'Game night'] },
  { name: 'Pine State Biscuits', category: 'dining', min: 12, max: 32, weight: 1, pay: 'cash' },
  { name: 'Starbucks', category: 'coffee', min: 4, max: 9, weight: 2.5, pay: 'mixed' },
  { name: 'Shell', category: 'fuel', min: 30, max: 65, weight: 2.5, pay: 'card', location: PDX('45.5468', '-122.6612') },
  { name: 'Chevron', category: 'fuel', min: 30, max: 70, weight: 2, pay: 'card' },
  { name: 'Arco', category: 'fuel', min: 25, max: 60, weight: 1.5, pay: 'checking' },
  { name: 'Petco', category: 'pets', min: 15, max: 75, weight: 1.5, pay: 'card' },
  { name: 'Banfield Pet Hospital', category: 'pets', min: 60, max: 240, weight: 0.3, pay: 'card', memos: ['Annual checkup', 'Vaccines'] },
  { name: 'Old Navy', category: 'clothing', min: 20, max: 90, weight: 1, pay: 'card' },
  { name: 'Nordstrom Rack', category: 'clothing', min: 30, max: 160, weight: 0.8, pay: 'card' },
  { name: "Powell's Books", category: 'hobbies', min: 12, max: 60, weight: 1.2, pay: 'mixed', location: PDX('45.5230', '-122.6813') },
  { name: 'REI', category: 'hobbies', min: 25, max: 180, weight: 0.6, pay: 'card', memos: ['Camping gear', 'Hiking boots'] },
  { name: 'Steam', category: 'fun', min: 5, max: 60, weight: 0.8, pay: 'card' },
  { name: 'AMC Theatres', category: 'fun', min: 14, max: 45, weight: 0.8, pay: 'card' },
  {
    name: 'Amazon',
    category: 'stuff',
    min: 10,
    max: 120,
    weight: 3,
    pay: 'card',
    memos: ['Phone charger', 'Birthday present', 'Kitchen stuff', 'Printer ink'],
  },
  { name: 'Great Clips', category: 'haircuts', min: 18, max: 35, weight: 0.7, pay: 'cash' },
  { name: 'Providence Health', category: 'medical', min: 25, max: 180, weight: 0.4, pay: 'checking', memos: ['Copay'] },
  { name: 'Coursera', category: 'education', min: 39, max: 79, weight: 0.3, pay: 'card' },
  { name: 'Jiffy Lube', category: 'car_maint', min: 45, max: 110, weight: 0.4, pay: 'card', memos: ['Oil change'] },
  { name: 'Les Schwab Tires', category: 'car_maint', min: 90, max: 400, weight: 0.15, pay: 'card' },
  // Freelance income, sized in the generator so that it pays for the everyday spending.
  { name: 'Studio Nine Design', category: 'income', min: 0, max: 0, weight: 3, pay: 'checking', memos: ['Logo project', 'Website refresh', 'Invoice paid'] },
];

/** Locations of some fixed payees (the coffee shop the couple walk to on Fridays). */
export const HOUSEHOLD_LOCATIONS: Record<string, [string, string]> = {
  'Blue Bottle Coffee': ['45.5215', '-122.6581'],
  'Oakwood Apartments': ['45.5289', '-122.6493'],
};

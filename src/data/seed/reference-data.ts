/**
 * The fixed vocabulary the seeder draws from: real countries and cities (with rough coordinates),
 * tags, backgrounds, name parts. Ids of locations, tags and backgrounds are their 1-based positions.
 */

export interface CityRef {
  name: string;
  lat: number;
  lon: number;
}

export interface CountryRef {
  name: string;
  code: string;
  weight: number;
  cities: CityRef[];
}

const city = (name: string, lat: number, lon: number): CityRef => ({ name, lat, lon });

export const COUNTRIES: CountryRef[] = [
  { name: 'United States', code: 'USA', weight: 40, cities: [city('San Francisco', 37.77, -122.42), city('New York', 40.71, -74.01), city('Boston', 42.36, -71.06), city('Austin', 30.27, -97.74), city('Seattle', 47.61, -122.33), city('Los Angeles', 34.05, -118.24)] },
  { name: 'United Kingdom', code: 'GBR', weight: 8, cities: [city('London', 51.51, -0.13), city('Cambridge', 52.21, 0.12), city('Manchester', 53.48, -2.24)] },
  { name: 'Germany', code: 'DEU', weight: 6, cities: [city('Berlin', 52.52, 13.4), city('Munich', 48.14, 11.58), city('Hamburg', 53.55, 9.99)] },
  { name: 'France', code: 'FRA', weight: 5, cities: [city('Paris', 48.86, 2.35), city('Lyon', 45.76, 4.84)] },
  { name: 'India', code: 'IND', weight: 6, cities: [city('Bengaluru', 12.97, 77.59), city('Mumbai', 19.08, 72.88), city('Delhi', 28.61, 77.21)] },
  { name: 'China', code: 'CHN', weight: 5, cities: [city('Beijing', 39.9, 116.41), city('Shanghai', 31.23, 121.47), city('Shenzhen', 22.54, 114.06)] },
  { name: 'Canada', code: 'CAN', weight: 3, cities: [city('Toronto', 43.65, -79.38), city('Vancouver', 49.28, -123.12), city('Montreal', 45.5, -73.57)] },
  { name: 'Israel', code: 'ISR', weight: 3, cities: [city('Tel Aviv', 32.09, 34.78), city('Jerusalem', 31.77, 35.21)] },
  { name: 'Netherlands', code: 'NLD', weight: 2, cities: [city('Amsterdam', 52.37, 4.9), city('Rotterdam', 51.92, 4.48)] },
  { name: 'Sweden', code: 'SWE', weight: 2, cities: [city('Stockholm', 59.33, 18.07)] },
  { name: 'Spain', code: 'ESP', weight: 2, cities: [city('Madrid', 40.42, -3.7), city('Barcelona', 41.39, 2.17)] },
  { name: 'Singapore', code: 'SGP', weight: 2, cities: [city('Singapore', 1.35, 103.82)] },
  { name: 'Brazil', code: 'BRA', weight: 2, cities: [city('São Paulo', -23.55, -46.63), city('Rio de Janeiro', -22.91, -43.17)] },
  { name: 'Japan', code: 'JPN', weight: 2, cities: [city('Tokyo', 35.68, 139.69), city('Osaka', 34.69, 135.5)] },
  { name: 'Switzerland', code: 'CHE', weight: 1, cities: [city('Zurich', 47.38, 8.54), city('Geneva', 46.2, 6.14)] },
  { name: 'Finland', code: 'FIN', weight: 1, cities: [city('Helsinki', 60.17, 24.94)] },
  { name: 'Estonia', code: 'EST', weight: 1, cities: [city('Tallinn', 59.44, 24.75)] },
  { name: 'Nigeria', code: 'NGA', weight: 1, cities: [city('Lagos', 6.52, 3.38)] },
  { name: 'Kenya', code: 'KEN', weight: 1, cities: [city('Nairobi', -1.29, 36.82)] },
  { name: 'Australia', code: 'AUS', weight: 1, cities: [city('Sydney', -33.87, 151.21), city('Melbourne', -37.81, 144.96)] },
  { name: 'South Korea', code: 'KOR', weight: 1, cities: [city('Seoul', 37.57, 126.98)] },
  { name: 'Ireland', code: 'IRL', weight: 1, cities: [city('Dublin', 53.35, -6.26)] },
];

export const INDUSTRIES = [
  'Fintech', 'Health', 'Biotech', 'Enterprise Software', 'E-Commerce', 'Education', 'Energy', 'Mobility',
  'Food', 'Real Estate', 'Security', 'Media', 'Gaming', 'Travel', 'Marketing', 'Robotics', 'Logistics',
  'Insurance', 'Legal', 'HR Tech', 'Climate', 'Agriculture', 'Space', 'Semiconductors', 'Fashion',
];
export const TECHNOLOGIES = [
  'Artificial Intelligence', 'Machine Learning', 'Blockchain', 'Cloud', 'Computer Vision', 'IoT', 'AR/VR',
  'Big Data', 'Quantum Computing', 'Natural Language Processing', 'Battery', '3D Printing',
];
export const BUSINESS_MODELS = ['SaaS', 'Marketplace', 'B2B', 'B2C', 'Subscription', 'Hardware', 'Platform'];
export const PROGRAMS = ['Y Combinator', 'Techstars', '500 Global', 'Entrepreneur First', 'Antler'];
export const BACKGROUNDS = [
  'Engineering', 'Product', 'Sales', 'Marketing', 'Finance', 'Consulting', 'Academia', 'Medicine',
  'Law', 'Design', 'Operations', 'Data Science',
];

/** Tags in id order: industries, technologies, business models, programs. */
export const TAGS: { name: string; type: string }[] = [
  ...INDUSTRIES.map((name) => ({ name, type: 'industry' })),
  ...TECHNOLOGIES.map((name) => ({ name, type: 'technology' })),
  ...BUSINESS_MODELS.map((name) => ({ name, type: 'business_model' })),
  ...PROGRAMS.map((name) => ({ name, type: 'program' })),
];

export const TAG_ID = {
  industry: (index: number) => 1 + index,
  technology: (index: number) => 1 + INDUSTRIES.length + index,
  businessModel: (index: number) => 1 + INDUSTRIES.length + TECHNOLOGIES.length + index,
  program: (index: number) => 1 + INDUSTRIES.length + TECHNOLOGIES.length + BUSINESS_MODELS.length + index,
};

export const NAME_STARTS = [
  'Nova', 'Quant', 'Blue', 'Hyper', 'Data', 'Flow', 'Bright', 'Cloud', 'Pixel', 'Green', 'Deep', 'Neo',
  'Swift', 'Open', 'True', 'Smart', 'Vivid', 'Lumen', 'Terra', 'Astra', 'Zen', 'Core', 'Peak', 'Silver',
  'Urban', 'Kin', 'Atlas', 'Echo', 'Orbit', 'Vector', 'Ember', 'Harbor', 'Nimbus', 'Polar', 'Sage', 'Tidal',
];
export const NAME_ENDS = [
  'ly', 'ify', 'io', 'labs', 'hub', 'works', 'AI', 'bio', 'pay', 'stack', 'wise', 'base', 'mind', 'grid',
  'loop', 'path', 'scale', 'sense', 'ware', 'nest', 'forge', 'shift', 'spark', 'leaf',
];
export const NAME_SUFFIXES = ['', '', '', '', ' Technologies', ' Health', ' Robotics', ' Systems', ' Energy', ' Analytics'];
export const INVESTOR_SUFFIXES = ['Ventures', 'Capital', 'Partners', 'Growth', 'Fund', 'Investments', 'Angels'];
export const FIRST_NAMES = [
  'Ada', 'Ben', 'Chloe', 'David', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kavya', 'Liam',
  'Maya', 'Noah', 'Olga', 'Pedro', 'Quinn', 'Rosa', 'Samir', 'Tara', 'Uma', 'Victor', 'Wen', 'Xavier',
  'Yara', 'Zoe', 'Amir', 'Bianca', 'Carlos', 'Dana', 'Emeka', 'Fatima', 'Gustav', 'Hana', 'Ivan', 'Julia',
];
export const FEMALE_FIRST_NAMES = new Set([
  'Ada', 'Chloe', 'Elena', 'Grace', 'Ines', 'Kavya', 'Maya', 'Olga', 'Rosa', 'Tara', 'Uma', 'Wen', 'Yara',
  'Zoe', 'Bianca', 'Dana', 'Fatima', 'Hana', 'Julia',
]);
export const LAST_NAMES = [
  'Okafor', 'Schmidt', 'Nakamura', 'Rossi', 'Kowalski', 'Haddad', 'Lindqvist', 'Moreau', 'Patel', 'Chen',
  'Garcia', 'Smith', 'Ivanova', 'Silva', 'Kim', 'Novak', 'Cohen', 'Murphy', 'Dubois', 'Tanaka', 'Larsen',
  'Mensah', 'Costa', 'Fischer', 'Ali', 'Brown', 'Yilmaz', 'Sato', 'Nguyen', 'Andersen',
];
export const DEGREES = ['BSc', 'BA', 'MSc', 'MBA', 'PhD', 'MEng'];
export const MAJORS = ['Computer Science', 'Economics', 'Physics', 'Biology', 'Mathematics', 'Business', 'Design', 'Chemistry'];
export const TITLES = ['CEO', 'CTO', 'COO', 'CPO', 'Chief Scientist', 'President'];

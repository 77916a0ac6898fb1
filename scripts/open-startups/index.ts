/**
 * Converts the open startup data (prisma/demo/sources: CrunchBase 2013, Y Combinator 2005-2014,
 * Tech Giants Acquisitions) into the canonical import format. See docs/open-data.md for the mapping and
 * the licences, and scripts/convert-open-startups.ts for the command.
 */
import { join } from 'node:path';
import { addCrunchbase } from './crunchbase.ts';
import { Dataset } from './dataset.ts';
import { addTechGiants } from './tech-giants.ts';
import { writeDataset, type WrittenFile } from './write-records.ts';
import { addYCombinator } from './yc.ts';

export interface ConversionReport {
  files: WrittenFile[];
  notes: Record<string, number>;
}

export function buildOpenStartupsDataset(sourceDir: string): { dataset: Dataset; notes: Record<string, number> } {
  const dataset = new Dataset();
  const crunchbase = addCrunchbase(dataset, join(sourceDir, 'crunchbase-2013'));
  const giants = addTechGiants(dataset, join(sourceDir, 'tech-giants-acquisitions'));
  const yc = addYCombinator(dataset, join(sourceDir, 'yc-2005-2014'));
  dataset.addAcquisitionValuations();
  return {
    dataset,
    notes: {
      crunchbase_rounds_skipped: crunchbase.skippedRounds,
      crunchbase_acquisitions_skipped: crunchbase.skippedAcquisitions,
      tech_giants_articles: giants.articles,
      tech_giants_acquisitions_added: giants.transactions,
      yc_startups: yc.startups,
      yc_founders: yc.founders,
      yc_rounds_with_investors: yc.roundsWithInvestors,
      acquisition_valuations: dataset.valuations.length,
    },
  };
}

export async function convertOpenStartups(sourceDir: string, outDir: string): Promise<ConversionReport> {
  const { dataset, notes } = buildOpenStartupsDataset(sourceDir);
  return { files: await writeDataset(dataset, outDir), notes };
}

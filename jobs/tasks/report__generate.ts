/** Generates a report from an engine run (usecases/generateReport.ts). */
import { generateReport } from '../../usecases/generateReport.ts';
import { reportGenerate } from '../queue/report__generate.ts';
import { defineTask } from '../runtime.ts';

export const reportGenerateTask = defineTask({ ...reportGenerate, run: generateReport });

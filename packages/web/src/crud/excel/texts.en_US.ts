// The import dialog's and its report's words (crud/excel): they come with those, both loaded on
// first use, instead of riding on every list's first screen.

const texts = {
  'crud.importSuccess': 'Imported successfully',
  'crud.importTitle': 'Import into {{entity}}',
  'crud.importTemplate': 'Download the template',
  'crud.importDrop': 'Drop an .xls or .xlsx file here, or click to choose one',
  'crud.importHint': 'One .xls or .xlsx file; the first row holds the column names of the template.',
  'crud.importFileOnly': 'Only .xls or .xlsx files can be imported',
  'crud.importNoFile': 'Please choose a file to import',
  'crud.importRejected': 'Nothing was imported. Problems found: {{count}}. Correct the file and import it again.',
  'crud.importDone': '$t(crud.rowsAdded, {"count": {{inserted}} }), $t(crud.rowsUpdated, {"count": {{updated}} })',
  'crud.importRow': 'Row',
  'crud.importField': 'Column',
  'crud.importProblem': 'Problem',
  'crud.importJobRunning': 'The file is large, so it is imported in the background. You may close this dialog: the import goes on, and the jobs button in the top bar follows it.',
  'crud.importJobClose': 'Close',
  'crud.importJobStop': 'Stop the import',
  'crud.importJobStopConfirm': 'Stop this import? Nothing of it will be imported.',
  'crud.importJobCancelled': 'The import was stopped: nothing was imported.',
}

export type TextKey = keyof typeof texts
export default texts

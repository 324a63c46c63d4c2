// The large inputs' own words (a stored file's, the rich text toolbar's, the video player's): they
// come with those inputs, loaded on first use, not with every list's first screen.

const texts = {
  'crud.uploadImage': 'Upload an image',
  'crud.uploadFile': 'Upload a file',
  'crud.imageOnly': 'Please choose a JPG, JPEG or PNG image',
  'crud.fileTypes': 'Allowed file types: {{types}}',
  'crud.fileTooLarge': '{{name}} is larger than {{max}}',
  'crud.fileLimits': '{{types}}; at most {{max}}',
  'crud.fileProgress': 'Uploading {{name}}',
  'crud.fileCancel': 'Cancel',
  'crud.fileReplace': 'Replace',
  'crud.fileRemove': 'Remove',
  'crud.fileSize': 'Size',
  'crud.bold': 'Bold',
  'crud.italic': 'Italic',
  'crud.bulletList': 'Bulleted list',
  'crud.numberedList': 'Numbered list',
  'crud.link': 'Link',
  'crud.linkAddress': 'Link address (https://…)',
  'crud.videoUnplayable': 'This browser cannot play the video: download it to watch it',
}

export type TextKey = keyof typeof texts
export default texts

import random, zipfile, os, sys
out=sys.argv[1]; n=int(sys.argv[2]); rnd=random.Random(int(sys.argv[3]))
os.makedirs(out, exist_ok=True)
NS='http://schemas.openxmlformats.org/spreadsheetml/2006/main'
FMTS=['General','yyyy-mm-dd','h:mm','0.00','[h]:mm:ss','d','mm-dd-yy','"yy"0','0%','dd/mm/yyyy hh:mm:ss.000']
SST=['alpha','x005F_x000D_ok','', ' ', 'TRUE','NA','12','3.50','a&b','<tag>','multi\nline','日本','1e5','False']
def esc(s): return s.replace('&','&amp;').replace('<','&lt;').replace('>','&gt;').replace('"','&quot;')
def col(c):
    s=''
    while c: c,r=divmod(c-1,26); s=chr(65+r)+s
    return s
for i in range(n):
    nx=rnd.randint(1,4)
    custom=[(164+k,f) for k,f in enumerate(rnd.sample(FMTS,3))]
    xfs=[rnd.choice([0,0,14,22,164,165,166,2,46,21])]+[rnd.choice([0,14,22,164,165,166,2,46,21,47,45,27]) for _ in range(5)]
    styles=f'<styleSheet xmlns="{NS}"><numFmts count="3">'+''.join(f'<numFmt numFmtId="{a}" formatCode="{esc(b)}"/>' for a,b in custom)+'</numFmts><cellXfs count="%d">'%len(xfs)+''.join(f'<xf numFmtId="{x}"/>' for x in xfs)+'</cellXfs></styleSheet>'
    sst=f'<sst xmlns="{NS}">'+''.join(f'<si><t xml:space="preserve">{esc(s)}</t></si>' if k%3 else f'<si><r><t>{esc(s[:2])}</t></r><r><t>{esc(s[2:])}</t></r><rPh sb="0" eb="1"><t>P</t></rPh></si>' for k,s in enumerate(SST))+'</sst>'
    rows=[]
    nrows=rnd.choice([1,2,4,8,15]); ncols=rnd.choice([1,2,3,5])
    userow=rnd.random()<0.7; usecell=rnd.random()<0.7
    r=0
    for ri in range(nrows):
        r += rnd.choice([1,1,1,2])
        cells=[]
        c=0
        for ci in range(ncols):
            c += rnd.choice([1,1,1,2]) if usecell else 1
            kind=rnd.choice(['n','n','s','str','b','e','inl','d','none','nf'])
            ref=f' r="{col(c)}{r}"' if usecell else ''
            st=f' s="{rnd.randrange(len(xfs))}"' if rnd.random()<0.5 else ''
            if kind=='n': v=rnd.choice(['1','2.0','0.5','-3','44000.25','1E3','12345678901','0','60','0.999','1.5e-7','7'])
            if kind=='nf': v=rnd.choice(['0.1','1','2','3.25'])
            if kind in('n','nf'): cells.append(f'<c{ref}{st}><v>{v}</v></c>')
            elif kind=='s': cells.append(f'<c{ref}{st} t="s"><v>{rnd.randrange(len(SST))}</v></c>')
            elif kind=='str': cells.append(f'<c{ref}{st} t="str"><f>X()</f><v>{esc(rnd.choice(["abc","1","","TRUE"]))}</v></c>')
            elif kind=='b': cells.append(f'<c{ref}{st} t="b"><v>{rnd.choice("01")}</v></c>')
            elif kind=='e': cells.append(f'<c{ref}{st} t="e"><v>#N/A</v></c>')
            elif kind=='inl': cells.append(f'<c{ref}{st} t="inlineStr"><is><t>{esc(rnd.choice(SST))}</t></is></c>')
            elif kind=='d': cells.append(f'<c{ref}{st} t="d"><v>{rnd.choice(["2020-01-02","2020-01-02T03:04:05","12:30:00","2021-06-07T00:00:00.5"])}</v></c>')
            else: cells.append(f'<c{ref}{st}/>')
        rr=f' r="{r}"' if userow else ''
        rows.append(f'<row{rr}>'+''.join(cells)+'</row>')
    sheet=f'<worksheet xmlns="{NS}"><sheetData>'+''.join(rows)+'</sheetData></worksheet>'
    date1904 = '<workbookPr date1904="1"/>' if rnd.random()<0.2 else ''
    parts={
     "[Content_Types].xml": '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
     "xl/workbook.xml": f'<workbook xmlns="{NS}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">{date1904}<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
     "xl/_rels/workbook.xml.rels": '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
     "xl/worksheets/sheet1.xml": sheet, "xl/sharedStrings.xml": sst, "xl/styles.xml": styles}
    with zipfile.ZipFile(os.path.join(out,f'r{i}.xlsx'),'w') as z:
        for k,v in parts.items(): z.writestr(k,v)

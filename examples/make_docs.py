# ruff: noqa: E501  (the document texts below are prose: one paragraph per line)
"""Regenerate the example PDFs in examples/docs/ (the committed PDFs are what users see).

Usage: ``python examples/make_docs.py`` (needs reportlab). Output is byte-for-byte
reproducible: reportlab runs in invariant mode (fixed dates and document ids).

Every text here is original and fictional (see examples/docs/README.md): Lindenhof
Hospital, Kestrel Data, AromaVita and LinkHaven do not exist, and the e-mail addresses and
web sites use the reserved ``example.org/.com/.net`` domains.

The document texts live in ``DOCS`` below as a tiny markup: ``# title``, ``## section``,
``### sub-heading``, ``- bullet``, ``1. step``, ``| table | rows |`` (first row is the
header), ``> note`` and blank-line separated paragraphs; ``**bold**`` inline.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from reportlab import rl_config

rl_config.invariant = 1  # fixed timestamps and ids: reproducible bytes

from reportlab.lib import colors  # noqa: E402
from reportlab.lib.enums import TA_CENTER  # noqa: E402
from reportlab.lib.pagesizes import A4, LETTER  # noqa: E402
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet  # noqa: E402
from reportlab.lib.units import mm  # noqa: E402
from reportlab.platypus import (  # noqa: E402
    BaseDocTemplate,
    Frame,
    KeepTogether,
    ListFlowable,
    ListItem,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

OUT = Path(__file__).resolve().parent / "docs"


@dataclass(frozen=True)
class Doc:
    """One PDF: file name, layout and marked-up text."""

    name: str
    body: str
    header: str = ""
    footer: str = ""
    page_numbers: str = ""  # "" (none), "plain" ("3"), "of" ("Page 3"), "dash" ("- 3 -")
    columns: int = 1
    letter: bool = False
    accent: str = "#1f4e79"


def _styles(accent: str) -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    colour = colors.HexColor(accent)
    body = ParagraphStyle("body", parent=base["BodyText"], fontName="Helvetica", fontSize=10, leading=13.5)
    return {
        "title": ParagraphStyle(
            "title", parent=body, fontName="Helvetica-Bold", fontSize=20, leading=24, textColor=colour, spaceAfter=10
        ),
        "h2": ParagraphStyle(
            "h2",
            parent=body,
            fontName="Helvetica-Bold",
            fontSize=13.5,
            leading=17,
            textColor=colour,
            spaceBefore=10,
            spaceAfter=4,
        ),
        "h3": ParagraphStyle("h3", parent=body, fontName="Helvetica-Bold", fontSize=10, spaceBefore=4, spaceAfter=2),
        "body": body,
        "note": ParagraphStyle(
            "note",
            parent=body,
            backColor=colors.HexColor("#eef3f8"),
            borderPadding=5,
            leftIndent=5,
            rightIndent=5,
            spaceBefore=6,
            spaceAfter=8,
        ),
        "cell": ParagraphStyle("cell", parent=body, fontSize=9, leading=11.5),
        "cellhead": ParagraphStyle("cellhead", parent=body, fontName="Helvetica-Bold", fontSize=9, leading=11.5),
        "running": ParagraphStyle("running", parent=body, fontSize=8, textColor=colors.grey, alignment=TA_CENTER),
    }


def _inline(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)


def _table(rows: list[str], st: dict[str, ParagraphStyle], width: float) -> Table:
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    data = [
        [Paragraph(_inline(c), st["cellhead"] if i == 0 else st["cell"]) for c in row] for i, row in enumerate(cells)
    ]
    table = Table(data, colWidths=[width / len(cells[0])] * len(cells[0]), repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#9aa7b4")),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dfe8f1")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    return table


def _list(items: list[str], st: dict[str, ParagraphStyle], numbered: bool) -> ListFlowable:
    flow = [ListItem(Paragraph(_inline(i), st["body"]), leftIndent=14) for i in items]
    kind = {"bulletType": "1", "bulletFormat": "%s."} if numbered else {"bulletType": "bullet", "start": "•"}
    return ListFlowable(flow, leftIndent=14, bulletFontSize=9, spaceBefore=2, spaceAfter=4, **kind)


def flowables(body: str, st: dict[str, ParagraphStyle], width: float) -> list:
    """Turn the markup of one document into reportlab flowables."""
    out: list = []
    blocks = re.split(r"\n\s*\n", body.strip())
    for block in blocks:
        lines = [ln.rstrip() for ln in block.strip().splitlines()]
        heading = None
        if lines[0].startswith("#"):
            heading, lines = lines[0], lines[1:]
            level = len(heading) - len(heading.lstrip("#"))
            style = {1: "title", 2: "h2"}.get(level, "h3")
            out.append(Paragraph(_inline(heading.lstrip("#").strip()), st[style]))
        if not lines:
            continue
        first = lines[0]
        if first.startswith("|"):
            out.append(_table(lines, st, width))
            out.append(Spacer(1, 6))
        elif first.startswith("- "):
            out.append(_list([ln[2:] for ln in lines], st, numbered=False))
        elif re.match(r"\d+\. ", first):
            out.append(_list([re.sub(r"^\d+\. ", "", ln) for ln in lines], st, numbered=True))
        elif first.startswith("> "):
            out.append(Paragraph(_inline(" ".join(ln[2:] for ln in lines)), st["note"]))
        else:
            out.append(Paragraph(_inline(" ".join(lines)), st["body"]))
        if heading and len(out) >= 2 and heading.startswith("## "):
            out[-2:] = [KeepTogether(out[-2:])]  # never leave a heading alone at a page bottom
    return out


def _title(doc: Doc) -> str:
    return next(ln[2:].strip() for ln in doc.body.splitlines() if ln.startswith("# "))


def render(doc: Doc, out_dir: Path = OUT) -> Path:
    """Write one PDF and return its path."""
    size = LETTER if doc.letter else A4
    margin = 20 * mm
    path = out_dir / f"{doc.name}.pdf"
    st = _styles(doc.accent)
    template = BaseDocTemplate(
        str(path),
        pagesize=size,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=margin,
        bottomMargin=margin,
        title=_title(doc),
        author="qagen examples (fictional)",
        invariant=1,
    )
    width = size[0] - 2 * margin
    gap = 8 * mm
    if doc.columns == 2:
        col = (width - gap) / 2
        frames = [
            Frame(margin, margin, col, size[1] - 2 * margin, id="left"),
            Frame(margin + col + gap, margin, col, size[1] - 2 * margin, id="right"),
        ]
        width = col
    else:
        frames = [Frame(margin, margin, width, size[1] - 2 * margin, id="body")]

    def running(canvas, tmpl) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.setFillColor(colors.grey)
        if doc.header:
            canvas.drawString(margin, size[1] - 12 * mm, doc.header)
            canvas.line(margin, size[1] - 13.5 * mm, size[0] - margin, size[1] - 13.5 * mm)
        n = canvas.getPageNumber()
        number = {"plain": str(n), "of": f"Page {n}", "dash": f"- {n} -"}.get(doc.page_numbers, "")
        if doc.footer:
            canvas.drawString(margin, 11 * mm, doc.footer)
        if number:
            canvas.drawRightString(size[0] - margin, 11 * mm, number)
        canvas.restoreState()

    template.addPageTemplates([PageTemplate(id="main", frames=frames, onPage=running)])
    template.build(flowables(doc.body, st, width))
    return path


def main(argv: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for doc in DOCS:
        path = render(doc)
        print(f"wrote {path.relative_to(OUT.parent)} ({path.stat().st_size // 1024} KiB)")
    return 0


# --------------------------------------------------------------------------------------
# Document texts
# --------------------------------------------------------------------------------------

HOSPITAL = "Lindenhof Hospital \u00b7 Patient information"

CARDIOLOGY = """
# Cardiology Outpatient Clinic

## About this leaflet
Your GP or specialist has referred you to the Cardiology Outpatient Clinic of Lindenhof Hospital. This leaflet explains how to prepare for your visit, which heart tests you may have and how to reach us. Please read it before your first appointment and keep it for later. If anything is unclear, our cardiac nurses are happy to help.

## Before your first appointment
You will receive a letter or an e-mail with the date and time of your appointment about two weeks in advance. Please check in the patient portal (https://mijn.lindenhof.example.org) that your address, GP and health insurance details are correct.

- Fill in the heart health questionnaire in the portal at least three days before your visit.
- Ask your GP to send us recent blood test results if you had them in the last six months.
- Keep taking all your medicines as usual, unless your doctor has told you otherwise.

## What to bring to your appointment
Please bring the following with you:

- a valid passport, identity card or residence permit;
- your health insurance card;
- an up-to-date list of all medicines you use, including eye drops, inhalers and supplements (your pharmacy can print one for you);
- any pacemaker or ICD card you have;
- comfortable clothes and shoes if you have an exercise test.

A family member or friend is welcome to come with you. Two people hear more than one.

## Where to find the clinic
The Cardiology Outpatient Clinic is on the first floor of the Heart Centre, route 14. From the main entrance, follow the red signs and take lift B. Report to the reception desk of route 14 at least ten minutes before your appointment time. If you use a wheelchair, you can borrow one free of charge at the main entrance.

## Tests you may have
Depending on your symptoms, the cardiologist may ask you to have one or more of these tests. Most tests are done on the same day as your consultation.

| Test | What it shows | How long it takes |
| ECG (electrocardiogram) | The electrical activity of your heart | 10 minutes |
| Echocardiogram | The structure and pumping action of your heart, by ultrasound | 30 to 45 minutes |
| Exercise test | How your heart copes with effort on a bicycle | 45 minutes |
| Holter monitor | Your heart rhythm during 24 or 48 hours at home | Fitting: 15 minutes |

## Preparing for an exercise test
During an exercise test you cycle on a fixed bicycle while we record your ECG and blood pressure. The effort is increased step by step until you are tired or the cardiologist stops the test.

- Do not eat a heavy meal in the two hours before the test; a light snack is fine.
- Do not smoke on the day of the test.
- Wear sports shoes and loose clothing. There is a changing room with a shower.
- If you use beta blockers, ask your cardiologist whether you should stop them before the test.

## Wearing a Holter monitor at home
A Holter monitor is a small recorder that you wear on a belt for 24 or 48 hours. Electrodes on your chest are connected to the recorder. Carry on with your normal daily activities, but do not shower or take a bath while you wear it. Write down in the diary what you are doing when you notice symptoms such as palpitations or dizziness, and the time. Bring the recorder and the diary back to route 14 on the agreed day before 10:00.

## Your medicines and the cardiologist
Many heart conditions are treated with medicines, such as blood thinners, beta blockers or cholesterol-lowering drugs. Never stop taking a heart medicine on your own, even if you feel better. If you think a medicine gives you side effects, contact the cardiac nurse. The outpatient pharmacy in the main hall can prepare your new prescription while you wait.

## Results and follow-up
The cardiologist usually discusses the results of the ECG and echocardiogram with you during the same visit. Results of a Holter recording take about one week. You will then have a follow-up appointment by phone or in the clinic. We also send a letter with the results to your GP. You can read your results in the patient portal once they have been discussed with you.

## Cancelling or changing an appointment
If you cannot come, please let us know at least 24 hours in advance, so that we can offer your appointment to another patient. You can change or cancel your appointment in the patient portal or by calling the appointments desk on +31 20 794 3120 (Monday to Friday, 8:30 to 16:30).

## When to call for help straight away
Call the emergency number 112 immediately if you have chest pain that lasts longer than 15 minutes, chest pain with sweating or shortness of breath, or if you faint. Do not drive yourself to the hospital. For questions that cannot wait until your next appointment, call the cardiac nurse line on +31 (0)20 794 3125 during office hours. Outside office hours, contact your GP out-of-hours service.

## Contact
Cardiology Outpatient Clinic, Heart Centre, route 14
Lindenhof Hospital, Spaarnelaan 40, 1054 KT Amsterdam

- Appointments desk: +31 20 794 3120
- Cardiac nurse line: +31 (0)20 794 3125
- E-mail (no urgent questions): cardiology@lindenhof.example.org
- Website: https://www.lindenhof.example.org/cardiology
"""

MATERNITY = """
# Maternity Ward and Delivery Suite

## Welcome
Congratulations on your pregnancy. Whether you plan to give birth at Lindenhof Hospital or your midwife refers you during labour, our team of gynaecologists, clinical midwives and maternity nurses is here for you and your baby. This leaflet tells you what to expect on the Maternity Ward (route 30, second floor) and in the Delivery Suite.

## Registering for your delivery
Please register between week 20 and week 24 of your pregnancy, even if you hope to give birth at home. Registration takes five minutes in the patient portal at https://mijn.lindenhof.example.org or at the reception of route 30. You need your insurance details and the name of your community midwife. After registration we can prepare your file, so that you can be admitted quickly when the time comes.

## Your hospital bag
Pack your bag by week 36. We recommend:

- your passport or identity card, insurance card and pregnancy file (the yellow card from your midwife);
- nightwear that opens at the front, a dressing gown and slippers;
- maternity pads and comfortable underwear;
- a baby outfit, a hat and a blanket for the journey home;
- an approved car seat for your baby: you cannot leave by car without one;
- phone charger, snacks and drinks for your partner.

We provide nappies and baby care products during your stay.

## When to come to the hospital
Always call before you leave home, so that we can prepare a room. Call your own midwife first if she supervises your labour. Call the Delivery Suite directly on +31 20 794 3300 (24 hours a day) if:

- your waters break, especially if the fluid is green or brown;
- you lose blood;
- you feel your baby move less than usual;
- you have contractions every five minutes for an hour and this is your first baby.

## Arriving at the Delivery Suite
Between 7:00 and 21:00 you use the main entrance. At night, ring the bell at the emergency entrance on the Spaarnelaan side; a porter will take you to the Delivery Suite. Your partner may park in front of the emergency entrance for 20 minutes to drop you off and must then move the car to the parking garage.

## Pain relief during labour
Every labour is different. Talk to your midwife about what suits you. We offer the following options:

| Option | How it works | Good to know |
| Breathing and warm water | Relaxation with a shower or bath | Available in every delivery room |
| Remifentanil pump | A strong painkiller through a drip that you control with a button | Works within a minute; you need extra monitoring |
| Epidural | Local anaesthetic through a thin tube in your back | Available 24 hours a day; placed by an anaesthetist |

## Rooming-in and family rooms
After the birth your baby stays with you in your room day and night. This helps you get to know your baby and learn to recognise feeding cues. Most rooms are family rooms where your partner can stay overnight on a fold-out bed at no extra cost. Meals for partners can be ordered from the ward kitchen for a small fee.

## Visitors on the Maternity Ward
Your partner is welcome at any time. Other visitors are welcome between 15:00 and 20:00, with a maximum of two visitors at the same time including children. Brothers and sisters of the newborn baby may visit at any time together with your partner. Please ask visitors with a cold or fever to stay at home.

## Feeding your baby
Whether you choose breastfeeding or bottle feeding, the maternity nurses will help you get started. A lactation consultant visits the ward every weekday morning. Breastfeeding mothers can borrow an electric breast pump during their stay. If your baby needs to be fed with a tube or cup, we will show you how.

## Newborn checks
A paediatrician examines your baby within 24 hours of birth. Your baby receives vitamin K drops, and a hearing test is offered. The heel prick test, a small blood test that screens for rare but treatable conditions, is done between 72 and 168 hours after birth. If you have already gone home, the heel prick is done at your home by the youth health service.

## Going home and maternity care at home
After an uncomplicated birth most mothers go home after four to 24 hours. After a caesarean section you usually stay two to three days. At home you are supported by a maternity care assistant (kraamverzorgende) from your maternity care organisation for up to eight days. Book your maternity care before week 16 of your pregnancy through your health insurer.

## Contact
- Delivery Suite (24 hours): +31 20 794 3300
- Maternity Ward: +31 20 794 3310
- Outpatient clinic obstetrics: (020) 794 3320
- E-mail: maternity@lindenhof.example.org
- More information and a virtual tour: www.lindenhof.example.org/maternity
"""

PHYSIO = """
# Physiotherapy after Knee Replacement Surgery

## Why exercise matters
After a knee replacement, exercise is the most important thing you can do to get a strong, flexible knee. Exercises improve the blood flow to your leg, reduce the risk of blood clots and help you to bend and straighten your new knee. It is normal to feel some pain and stiffness while you exercise, but the pain should settle within half an hour afterwards.

## The first days after surgery
A physiotherapist will visit you on the day of your operation or the next morning. Together you will get out of bed and walk a few steps with a walking frame. Most patients walk to the bathroom with crutches on the second day. You usually go home two or three days after surgery, once you can walk safely, climb stairs and manage your exercises on your own.

## Your exercise programme
Do these exercises three to four times a day, spread over the day. Start gently and increase the number of repetitions as your knee allows.

| Exercise | Repetitions | Times a day |
| Ankle pumps | 20 | Every hour while awake |
| Quadriceps sets | 10, hold 5 seconds | 4 |
| Heel slides | 10 | 4 |
| Straight leg raises | 10 | 3 |
| Knee bends sitting on a chair | 10, hold 5 seconds | 3 |

## How to do the exercises
**Ankle pumps:** lie on your back and move your feet up and down briskly. This keeps the blood flowing in your calves.

**Quadriceps sets:** press the back of your knee firmly into the bed by tightening the muscle at the front of your thigh. Hold for five seconds and relax.

**Heel slides:** slide the heel of your operated leg towards your bottom as far as is comfortable, then slide it back.

**Straight leg raises:** tighten your thigh, keep the knee straight and lift the leg about 20 cm off the bed. Hold for three seconds and lower it slowly.

## Walking with crutches
Use two crutches for the first four to six weeks, or until your physiotherapist says you can use one. Move both crutches forward first, then step forward with the operated leg, and follow with the other leg. Put as much weight on your operated leg as feels comfortable, unless your surgeon has told you otherwise. Remove loose rugs and cables at home to prevent falls.

## Climbing stairs
Always use the handrail and one crutch. Remember: the good go up, the bad come down.

1. Going up: step up with your good leg first, then bring up the operated leg and the crutch.
2. Going down: put the crutch on the step below, then the operated leg, then the good leg.
3. Take one step at a time, and never carry heavy items on the stairs in the first weeks.

## Managing pain and swelling
Take your painkillers regularly as prescribed, especially in the first two weeks, and about half an hour before you exercise. Cool your knee with an ice pack wrapped in a towel for 15 to 20 minutes after exercising. Never put ice directly on your skin. Raise your leg on a cushion when you are resting, so that your foot is higher than your hip.

## Warning signs
Contact the orthopaedic nurse on +31 20 794 3460, or outside office hours the Emergency Department on +31 20 794 3999, if you notice:

- a temperature above 38.5 \u00b0C;
- increasing redness, warmth or fluid leaking from the wound;
- a painful, swollen calf (this may be a blood clot);
- sudden shortness of breath: call 112.

## Outpatient physiotherapy
After you go home you continue with a physiotherapist near your home, usually twice a week for eight to twelve weeks. Book your first appointment for the week after discharge. Your hospital physiotherapist will send a transfer letter. Basic health insurance covers physiotherapy after a knee replacement from the 21st treatment; check your supplementary insurance for the first 20 sessions.

## Getting back to daily life
- Driving: usually after six weeks, when you can do an emergency stop. Check with your insurer.
- Work: office work after six to eight weeks, physical work after three months.
- Cycling on a home trainer: from week four; outdoor cycling after about three months.
- Swimming: once the wound has fully healed, usually after six weeks.
- Kneeling and high-impact sports such as running or football are not recommended.

## Contact
Physiotherapy department, route 52, ground floor
- Phone: +31 20 794 3450 (Monday to Friday, 8:00 to 17:00)
- Orthopaedic nurse: +31 20 794 3460
- E-mail: physio@lindenhof.example.org
- Exercise videos: www.lindenhof.example.org/knee-exercises
"""

PHARMACY = """
# Outpatient Pharmacy

## About the outpatient pharmacy
The outpatient pharmacy in the main hall of Lindenhof Hospital supplies medicines to patients who visit an outpatient clinic, who are discharged from a ward or who receive treatment at home. Our pharmacists and pharmacy assistants check every prescription for the right dose and for interactions with other medicines you use.

## Opening hours
| Day | Opening hours |
| Monday to Friday | 8:00 to 18:00 |
| Saturday | 10:00 to 14:00 |
| Sunday and public holidays | Closed |

Outside opening hours you can go to the on-call pharmacy for the Amsterdam-West area. Its address is on the door of our pharmacy and on our website.

## Collecting your prescription
Your doctor sends the prescription to us electronically. Take a number from the ticket machine at the entrance of the pharmacy. The waiting time is usually 15 to 30 minutes. For a medicine we do not have in stock, we will tell you when you can collect it or we can deliver it to your home for free the next working day. Please bring your health insurance card when you collect medicines for the first time.

## Repeat prescriptions
You can order a repeat prescription online at www.lindenhof.example.org/repeat, by e-mail to pharmacy@lindenhof.example.org, or by phone using our 24-hour repeat line +31 20 794 3510. Order at least three working days before you run out. Repeat prescriptions can only be issued for medicines prescribed by a Lindenhof specialist; for other medicines, contact your GP.

## Bringing your medicines to hospital
When you are admitted, bring all the medicines you use in their original packaging, including over-the-counter medicines, vitamins and herbal products. On admission a pharmacy assistant will go through your medicines with you. Do not take your own medicines during your stay unless the nurse has agreed to this.

## Your medication overview
A medication overview is a list of all medicines you use, with their strength and how often you take them. Keep the overview with you, for instance in your wallet or on your phone, and show it to every doctor, dentist and pharmacist you visit. When you go home after an admission, we check your medicines again and explain any changes.

## Taking blood thinners
Blood thinners (anticoagulants) such as apixaban, rivaroxaban or acenocoumarol reduce the risk of blood clots but increase the risk of bleeding.

- Take your blood thinner at the same time every day. Never take a double dose if you forget one.
- Do not take painkillers such as ibuprofen or naproxen without asking your pharmacist; paracetamol is usually safe.
- Tell your dentist that you use a blood thinner before any treatment.
- If you use acenocoumarol, the thrombosis service checks your blood regularly. Keep your dosage calendar up to date.
- Seek help immediately if you have black stools, blood in your urine or a nosebleed that does not stop after 30 minutes.

## Storing medicines at home
Store most medicines at room temperature (15 to 25 \u00b0C), dry and out of direct sunlight. Some medicines, such as insulin and certain eye drops, must be kept in the fridge between 2 and 8 \u00b0C. Keep medicines in their original packaging with the pharmacy label, and always out of the reach of children.

## Returning unused medicines
Do not flush unused or expired medicines down the toilet or throw them away with household waste. Return them to any pharmacy, free of charge. Used needles and syringes must be returned in a special sharps container, which you can get from our pharmacy.

## Side effects
Every medicine can cause side effects. The patient information leaflet in the package lists the known side effects. If you experience a side effect that worries you, contact your doctor or our pharmacist. You can also report side effects yourself to the national pharmacovigilance centre through its website, lareb.example.org.

## Travelling with medicines
Take enough medicines for your whole trip plus a few extra days, and keep them in your hand luggage. For some medicines, such as strong painkillers and sleeping pills, you need a medical certificate when you travel abroad. Apply for the certificate at least four weeks before you leave. Our pharmacists can advise you about time differences and medicines that need to be kept cool.

## Costs and insurance
Most medicines are covered by your basic health insurance. You pay the compulsory excess (eigen risico) of \u20ac385 per calendar year first. For some medicines an extra personal contribution applies; we will tell you before you collect them. Medicines that are not covered, such as some vitamins, can be paid by debit card at the pharmacy desk.

## Contact
- Pharmacy desk: +31 20 794 3500
- Repeat prescription line (24 hours): +31 20 794 3510
- E-mail: pharmacy@lindenhof.example.org
"""

VISITING = """
# Visiting Hours, Getting Here and Parking

## Visiting hours
Visitors help patients to recover, but patients also need rest. Please respect the visiting hours of each ward. Ask the nurse in charge if you would like to visit outside these hours, for instance when a patient is seriously ill.

| Ward | Visiting hours | Visitors at the same time |
| General wards | 14:00 to 20:00 | 2 |
| Cardiology ward (Heart Centre) | 15:00 to 20:00 | 2 |
| Maternity Ward | 15:00 to 20:00 (partners at any time) | 2 |
| Children's ward | Parents at any time; others 15:00 to 19:00 | 2 |
| Intensive Care Unit | 11:00 to 12:00 and 16:00 to 20:00 | 2 |

## Visiting the Intensive Care Unit
Always ring the bell at the entrance of the Intensive Care Unit and wait until a nurse lets you in. Wash or disinfect your hands before entering. At most two visitors may be at the bedside at the same time. Mobile phones must be on silent mode. Children under 12 may visit after consulting the nurse.

## Children visiting
Children are welcome on most wards, provided they are accompanied by an adult. Children with a cold, fever, chickenpox or another infectious disease should not visit. The play corner in the main hall is open daily from 9:00 to 19:00.

## Flowers and gifts
Flowers are allowed on most wards, but not on the Intensive Care Unit or on the haematology ward, because of the risk of infection. Please do not bring balloons made of latex, as some patients are allergic. The hospital shop in the main hall sells flowers, magazines and small gifts.

## Getting here by public transport
Lindenhof Hospital is easy to reach by public transport. Tram 7 and bus 15 stop in front of the main entrance (stop Lindenhof Ziekenhuis). From Amsterdam Sloterdijk station, take bus 15 towards Spaarnelaan, which takes about 12 minutes. Plan your journey at 9292.example.org.

## Parking garage
The parking garage P1 is next to the main entrance and open 24 hours a day. Pay at the machines in the hall with a debit or credit card before you return to your car.

| Parking time | Tariff |
| First 30 minutes | Free |
| Per hour | \u20ac2.50 |
| Maximum per day | \u20ac15.00 |
| Week card for visitors | \u20ac35.00 |

Patients who need to visit the hospital several times a week, and relatives of patients who stay longer than a week, can buy a week card at the information desk.

## Disabled parking
There are 20 disabled parking spaces on the ground floor of P1, close to the lifts, and six spaces in front of the main entrance. You need a valid disabled parking card. Wheelchairs can be borrowed free of charge at the main entrance; you need a \u20ac1 coin for the deposit.

## Drop-off and taxis
You can drop off patients in the Kiss and Ride zone in front of the main entrance for up to ten minutes. The taxi rank is to the right of the main entrance. The information desk can call a taxi for you.

## Restaurant and shop
The restaurant Lindeboom on the ground floor is open for patients and visitors from 8:00 to 19:30 on weekdays and from 10:00 to 19:00 at weekends. The hospital shop is open from 8:30 to 20:00 every day. There are cash machines next to the shop.

## Information desk
The information desk in the main hall is open every day from 7:30 to 21:00. You can ask for directions, borrow a wheelchair or buy a week card for the parking garage.

- Switchboard and information desk: +31 20 794 3000
- Parking office: (020) 794 3090
- E-mail: info@lindenhof.example.org
"""

HANDBOOK = "Kestrel Data \u00b7 Employee Handbook"

LEAVE = """
# Leave and Absence Policy

## Scope of this policy
This policy applies to all employees of Kestrel Data B.V. (Amsterdam) and Kestrel Data Inc. (Boston) with a permanent or fixed-term contract. Interns and contractors follow the terms of their own agreements. Where Dutch or US law gives you more rights than this policy, the law applies. The People team reviews this policy every year in January.

## Annual leave entitlement
Your annual leave depends on your contract hours and your office. Leave is built up in hours, so that part-time employees get a fair share.

| Contract | Amsterdam office | Boston office |
| 40 hours a week | 200 hours (25 days) | 160 hours (20 days) |
| 32 hours a week | 160 hours | 128 hours |
| 24 hours a week | 120 hours | 96 hours |

Employees in Boston receive one extra day for every two full years of service, up to a maximum of five extra days.

## Requesting leave
Request leave in the HR portal at https://people.kestrel.example.com under Time off. Your manager approves or declines the request within five working days.

- For leave of up to three days, request at least one week in advance.
- For leave of two weeks or longer, request at least two months in advance.
- During the summer period (July and August), teams plan their leave together in April.

Your manager may only refuse a request for a serious business reason, and must explain the reason in writing.

## Carrying over leave
In Amsterdam, statutory leave (four times your weekly hours) expires six months after the end of the year in which you built it up. Extra leave above the statutory minimum can be used for five years. In Boston, you can carry over at most 40 hours to the next calendar year; any hours above 40 expire on 31 March.

## Public holidays
Public holidays are paid days off in addition to your annual leave. The Amsterdam office follows the Dutch public holidays, including King's Day and Liberation Day (every year). The Boston office follows the US federal holidays, including Thanksgiving and Independence Day. If you work in a different office for a longer period, the holidays of that office apply.

## Reporting sick
If you are ill and cannot work, call your manager before 9:30 on your first day of illness. A text message or e-mail alone is not enough. Also register your absence in the HR portal on the same day. Tell your manager how long you expect to be away and whether any work needs to be handed over. You do not have to tell your manager what your illness is.

In Amsterdam, the occupational health service may contact you if you are absent for longer than two weeks. You can reach the absence desk on 020-2614410 with any questions.

## Sick leave in the Boston office
Employees in Boston receive 64 hours of paid sick time each calendar year. You can use sick time for your own illness, medical appointments or to care for a sick family member. Please inform your manager by phone before the start of your working day, and contact the Boston HR team at (617) 555-0178 if you are absent for more than three consecutive days.

## Parental leave
Both parents are entitled to parental leave until their child turns eight. In Amsterdam, you can take up to 26 times your weekly working hours; the first nine weeks in the child's first year are partly paid by the UWV benefits agency. In Boston, eligible employees receive twelve weeks of paid parental leave after the birth or adoption of a child. Discuss your plans with your manager at least two months before you want to start.

## Birth leave for partners
After the birth of their child, partners in Amsterdam receive one week of fully paid birth leave, followed by up to five weeks of additional birth leave paid by the UWV at 70% of salary. Take the additional leave within six months of the birth. Register the birth leave in the HR portal, and attach a copy of the birth certificate.

## Special leave
You receive paid special leave for important personal events:

| Event | Paid special leave |
| Your own wedding or registered partnership | 2 days |
| Death of a partner, child or parent | Up to 4 days |
| Death of another relative | 1 day for the funeral |
| Moving house (once a year) | 1 day |
| Medical appointment that cannot be planned outside working hours | The time needed |

## Unpaid leave and sabbaticals
After three years of service you can apply for unpaid leave of one to six months, for instance for a long trip or study. Send your request to your manager at least four months in advance. During unpaid leave you do not build up annual leave, and you must arrange your own health insurance in the US. Your job is guaranteed when you return.

## Questions about leave
Contact the People team in your office:

- Amsterdam: +31 20 261 4400, people-nl@kestrel.example.com
- Boston: +1 617-555-0142, people-us@kestrel.example.com
"""

HELPDESK = """
# IT Helpdesk Guide

## How to contact the IT helpdesk
The IT helpdesk helps you with your laptop, accounts, software and the office network. The fastest way to get help is to log a ticket in the self-service portal at https://help.kestrel.example.com. You can also:

- send an e-mail to helpdesk@kestrel.example.com (a ticket is created automatically);
- call +31 20 261 4444 (Amsterdam) or 1-800-555-0199 (Boston, toll free);
- walk in at the IT desk on the third floor in Amsterdam or the second floor in Boston.

The helpdesk is staffed on working days from 8:00 to 18:00 local time. Outside these hours, only priority 1 incidents are handled by the on-call engineer.

## Priority levels and response times
When you log a ticket, the helpdesk sets a priority based on the impact on your work.

| Priority | Example | First response | Target solution |
| P1 - critical | The whole office has no internet | 15 minutes | 4 hours |
| P2 - high | You cannot log in to your laptop | 1 hour | 1 working day |
| P3 - normal | A printer does not work | 4 hours | 3 working days |
| P4 - request | You need new software | 1 working day | 5 working days |

## Your laptop
Every employee receives a company laptop with a standard set of software. Keep your laptop with you when you travel and never leave it visible in a car. Restart your laptop at least once a week, so that security updates are installed. Do not install software from unknown sources; you are not allowed to disable the virus scanner or the disk encryption.

## Passwords and two-factor authentication
Your company password must have at least 14 characters. We recommend a passphrase of four or more random words. You do not have to change your password regularly, but you must change it immediately if you think someone else knows it. Two-factor authentication with the Kestrel Authenticator app is required for e-mail, the HR portal and VPN. Never share verification codes with anyone, including the helpdesk.

## Resetting your password
If you forgot your password, go to https://password.kestrel.example.com and follow the steps. You need your phone with the authenticator app. If you also lost your phone, call the helpdesk: the engineer will verify your identity with a video call and your employee number before resetting your account.

## Working remotely with VPN
Use the Kestrel VPN when you work outside the office and need internal systems such as the finance system or the file shares. Cloud applications such as e-mail and the HR portal work without VPN. Connect to VPN from the icon in the system tray and sign in with two-factor authentication. Do not use public Wi-Fi networks without VPN.

## Reporting phishing
Phishing e-mails try to make you click a link, open an attachment or share your password. Be suspicious of messages that are urgent, ask for login details or come from an unexpected sender. Use the Report phishing button in Outlook to report a suspicious message; it is then removed from your mailbox and checked by the security team. If you already clicked a link or entered your password, call the helpdesk immediately and change your password.

## Lost or stolen devices
Report a lost or stolen laptop, phone or access badge to the helpdesk within one hour, also outside office hours, by calling +31 20 261 4444 and choosing option 1. The helpdesk will lock the device and block your badge. In case of theft, also report it to the police and send the police report to security@kestrel.example.com.

## Requesting software and equipment
Request new software, a second monitor, a headset or other equipment in the self-service portal under Requests. Your manager approves the request. Standard items are delivered within five working days; special software may take longer because the licence must be purchased. Software that is not on the approved list is first checked by the security team.

## Printing
Printers are available on every floor. Send your document to the printer queue Kestrel-Follow-Me and collect it at any printer by holding your access badge against the card reader. Print jobs that are not collected are deleted after 24 hours. Please print double-sided and in black and white where possible.

## Wi-Fi for guests
Employees use the Kestrel-Staff network, which connects automatically on your company laptop. Guests can use the Kestrel-Guest network. Create a guest code at the reception desk or in the self-service portal; a guest code is valid for seven days. Guests cannot reach internal systems from the guest network.
"""

EXPENSES = """
# Travel and Expenses Policy

## Purpose
This policy explains which business costs Kestrel Data reimburses and how you claim them. We expect everyone to spend company money as carefully as their own. If you are not sure whether a cost can be claimed, ask your manager before you make it.

## What you can claim
You can claim costs that you make for your work and that are not paid directly by Kestrel Data, such as:

- train and public transport tickets for business trips;
- travel by private car at the mileage rate;
- hotel costs and meals during business trips;
- taxis when no reasonable public transport is available;
- conference fees, books and courses approved by your manager;
- business meals with customers, up to the limits below.

Commuting between your home and your regular office is covered by the travel allowance in your salary, not by expense claims.

## How to submit a claim
Submit your claims in the expenses app or at https://expenses.kestrel.example.com within 60 days after you made the costs. Take a photo of each receipt with the app, choose the expense category and add a short description with the business purpose. Claims submitted later than 60 days are only paid with approval from the finance manager.

## Receipts
Every claim needs a receipt that shows the supplier, the date, the amount and the VAT. A credit card slip alone is not a receipt. If you lost a receipt, fill in the missing receipt form in the expenses app; this is possible at most three times a year. Keep the paper receipts until the claim is paid.

## Train and air travel
Travel by train for destinations that you can reach within six hours, such as Brussels, Paris, London and Frankfurt from Amsterdam. Book second class for trips within the Netherlands and first class for international train trips longer than three hours. Book flights through the travel agency portal at least 14 days in advance and always in economy class. Business class is allowed for flights longer than eight hours, with approval from a director.

## Mileage rates
If you use your private car for a business trip, you can claim a fixed amount per kilometre. Parking and toll costs can be claimed separately.

| Office | Rate | How to record |
| Amsterdam | \u20ac0.23 per km | Route planner distance |
| Boston | $0.67 per mile | Route planner distance |

## Hotels and meals
Book hotels through the travel agency portal, which shows hotels within our maximum rates. For meals during business trips you can claim actual costs up to a daily maximum:

| City | Hotel per night | Meals per day |
| Amsterdam | \u20ac180 | \u20ac60 |
| Boston | $260 | $85 |
| London | \u00a3190 | \u00a355 |
| Other cities | \u20ac150 | \u20ac50 |

Alcohol is only reimbursed at business meals with customers, within reason.

## Company credit cards
Employees who travel more than four times a year can apply for a company credit card. The card is only for business costs. Upload the receipts of all card payments in the expenses app within 30 days. If you use the card for a private payment by mistake, tell the finance team and repay the amount within one month.

## Approval and payment
Your manager approves your claim in the expenses app. Claims of more than \u20ac1,000 or $1,100 also need approval from the finance manager. Approved claims are paid with the next salary payment if they are approved before the 15th of the month; otherwise with the salary of the following month.

## What you cannot claim
- fines, such as parking or speeding tickets;
- personal items such as clothing, toiletries or minibar purchases;
- travel insurance (you are insured through the company policy);
- costs of a partner or family member travelling with you;
- upgrades to a higher class that are not approved in advance.

## Questions about expenses
Send questions to expenses@kestrel.example.com or call the finance team on +31 20 261 4470. In Boston, call (617) 555-0190.
"""

ONBOARDING = """
# Welcome to Kestrel Data: Your First Weeks

## Welcome aboard
We are glad you are joining Kestrel Data. This guide helps you find your way in your first weeks: what to do before your first day, who will help you, and where to find the practical information you need. Keep it at hand, and do not hesitate to ask questions. Everybody at Kestrel was new once.

## Before your first day
About two weeks before you start, you receive an e-mail from the People team with a link to the HR portal. Please complete these steps before your first day:

- upload a copy of your passport or identity card and your bank details;
- sign your contract and the confidentiality agreement digitally;
- Amsterdam only: send your citizen service number (BSN) and choose your pension option;
- Boston only: complete form I-9 and your tax withholding form W-4;
- upload a photo for your access badge.

## Your first day
On your first day, please report to the reception at 9:00. Your manager or your buddy will meet you there.

| Time | What happens |
| 9:00 | Welcome at reception, access badge and coffee |
| 9:30 | Laptop handover and account set-up with IT |
| 11:00 | Meeting your team |
| 12:30 | Lunch with your buddy |
| 14:00 | Office tour and safety instructions |
| 15:00 | Introduction meeting with your manager |

## Your buddy
Every new employee gets a buddy: a colleague from another team who has worked at Kestrel for at least a year. Your buddy is the person to ask the questions you might not want to ask your manager, such as where the best coffee is or how meetings usually work. You meet your buddy at least once a week during your first three months.

## Equipment and accounts
The IT helpdesk prepares your laptop, headset and accounts before you start. On your first morning you set your password and install the Kestrel Authenticator app on your phone for two-factor authentication. If you need extra equipment, such as a second monitor, you can request it through the IT self-service portal.

## Introductory programme
In your first month you follow the Kestrel introductory programme. It consists of a welcome session with our CEO, online courses on information security and privacy (both mandatory, to be finished within 30 days), and a product day where you learn how our customers use our software. New employees in Boston follow the same programme online, with an extra session on US benefits.

## Probation period
Employees in Amsterdam with a permanent contract have a probation period of two months; with a fixed-term contract of more than six months, the probation period is one month. In Boston, the introductory period is 90 days. During this period you have a check-in meeting with your manager every month to discuss how things are going and what support you need.

## Working hours and flexibility
A full-time working week is 40 hours. Core hours are from 10:00 to 15:00, when we expect you to be available for meetings. Outside the core hours you can plan your own working day in agreement with your team. Most teams work at the office at least two days a week; see the remote work policy for details.

## Our offices
**Amsterdam:** Kestrel Data B.V., Piet Heinkade 120, 1019 BR Amsterdam. The office is a ten-minute walk from Amsterdam Central Station. Bicycle parking is in the basement.

**Boston:** Kestrel Data Inc., 85 Summer Street, Suite 400, Boston, MA 02110. The office is near South Station. Employees receive a monthly public transport pass.

Both offices are open from 7:00 to 20:00 on working days. Your access badge opens the main doors and your floor.

## Lunch, events and social life
Lunch is provided at the Amsterdam office every working day at 12:30. In Boston, lunch is catered on Tuesdays and Thursdays. On the last Friday of the month, we meet for drinks at 17:00. The social committee organises a summer event and an end-of-year party, and there are running, board game and language clubs you can join.

## Key contacts
| Topic | Amsterdam | Boston |
| People team | +31 20 261 4400 | (617) 555-0142 |
| IT helpdesk | +31 20 261 4444 | 1-800-555-0199 |
| Reception | +31 20 261 4000 | (617) 555-0100 |
| Facilities | facilities-nl@kestrel.example.com | facilities-us@kestrel.example.com |

The company intranet at https://intranet.kestrel.example.com has the phone list, policies and news.
"""

PRODUCT = "AromaVita Barista 300 \u00b7 User manual"

COFFEE = """
# AromaVita Barista 300 Espresso Machine: User Manual

## Important safety instructions
Read these instructions carefully before you use the machine and keep them for future reference.

- Connect the machine only to an earthed socket with a voltage of 220 to 240 V.
- Never immerse the machine, the power cord or the plug in water.
- The steam wand and the brewing unit become very hot. Do not touch them during use.
- Keep the machine out of reach of children under eight years.
- Unplug the machine before cleaning and when you do not use it for a long time.
- Do not use the machine if the power cord is damaged; have it replaced by AromaVita Service.

## What is in the box
- AromaVita Barista 300 espresso machine
- Water tank (1.8 litres) with water filter holder
- Milk frothing jug (350 ml)
- Portafilter with single and double filter baskets
- Tamper and measuring spoon
- Water hardness test strip
- Descaling solution (250 ml)
- This user manual and the warranty card

## Parts of the machine
The control panel on the top front has four buttons: single espresso, double espresso, hot water and steam. The grind selector is on the right side of the bean hopper, and the cup size dial is next to the control panel. The drip tray at the bottom has a red float that rises when the tray needs emptying. The steam wand is on the right side of the machine.

## Before first use
1. Remove all packaging and stickers, and wash the water tank, jug and filter baskets in warm soapy water.
2. Test the hardness of your tap water with the test strip and set the water hardness (see Descaling).
3. Fill the water tank with fresh cold water up to the MAX mark.
4. Press the power button. The machine heats up in about 40 seconds.
5. Place a large cup under the outlet and press the hot water button to rinse the system with 500 ml of water.

## Making an espresso
1. Fill the bean hopper with fresh coffee beans. Do not use oily, caramelised or flavoured beans.
2. Place a preheated cup under the coffee outlet.
3. Press the single espresso button for one cup or the double espresso button for two cups.
4. The machine grinds the beans, brews and stops automatically.

A good espresso flows like warm honey and takes 25 to 30 seconds for 30 ml. If the coffee runs too fast, choose a finer grind; if it drips slowly, choose a coarser grind.

## Making a cappuccino
1. Fill the frothing jug one third with cold milk, preferably whole milk straight from the fridge.
2. Press the steam button. Wait until the light stops flashing (about 20 seconds).
3. Hold the tip of the steam wand just below the surface of the milk and turn the steam knob open.
4. When the milk has doubled in volume and the jug feels hot, close the knob.
5. Pour the milk on a double espresso.

Wipe the steam wand with a damp cloth immediately after use and let some steam out for two seconds to clean the inside.

## Adjusting the grind
The grind selector has eight settings: 1 is the finest and 8 is the coarsest. The factory setting is 5. Only turn the selector while the grinder is running, one step at a time. It takes two or three cups before you taste the difference.

## Cleaning the machine
- Daily: empty the drip tray and the coffee grounds container, and rinse the water tank.
- Weekly: remove the brewing unit from the side door and rinse it under lukewarm running water. Do not use detergent. Let it dry before putting it back.
- Monthly: use a cleaning tablet with the cleaning programme (hold the single and double buttons for five seconds).
- Never put any part in the dishwasher except the drip tray grid.

## Descaling
Limescale builds up in the machine over time and damages the heating element. The machine tells you when to descale with an orange light. How often depends on the hardness of your water:

| Water hardness | Test strip result | Descale every |
| Soft | 1 red square | 3 months |
| Medium | 2 red squares | 2 months |
| Hard | 3 red squares | 6 weeks |
| Very hard | 4 red squares | 4 weeks |

To descale, pour the AromaVita descaling solution into the empty water tank, add water up to the 0.5 litre mark, place a container of at least 1 litre under the outlet and hold the hot water and steam buttons together for five seconds. The programme takes about 25 minutes. Use only AromaVita descaling solution: damage caused by vinegar or other products is not covered by the warranty.

## Saving energy
The machine switches to stand-by after 15 minutes without use. You can change the stand-by time to 30 or 60 minutes by holding the power button for five seconds until the light flashes, and then pressing the single espresso button (15 minutes), double espresso (30 minutes) or hot water (60 minutes). In stand-by the machine uses less than 0.5 W.

## Troubleshooting
| Problem | Possible cause | What to do |
| The coffee is not hot enough | Cups are cold | Preheat cups with hot water |
| Coffee runs out too slowly | Grind too fine or brewing unit dirty | Choose a coarser grind; clean the brewing unit |
| No steam from the wand | Steam wand blocked by milk | Clean the tip with the pin from the box |
| Water under the machine | Drip tray full or not placed correctly | Empty the drip tray and push it fully in |
| The grinder makes a loud noise | A stone or foreign object in the beans | Unplug the machine and contact AromaVita Service |

## Error codes
- **E1** (flashing red light): the water tank is empty or not placed correctly. Fill the tank and push it down firmly.
- **E2**: the brewing unit is missing or not locked. Open the side door and push the brewing unit in until it clicks.
- **E3**: the machine is overheated. Switch it off and let it cool down for 30 minutes.
- **E4**: an internal error. Switch the machine off and on again. If the error returns, contact AromaVita Service.

## Technical specifications
| Specification | Value |
| Model number | BAR-300-EU |
| Voltage | 220 to 240 V, 50 Hz |
| Power | 1450 W |
| Pump pressure | 15 bar |
| Water tank | 1.8 litres |
| Bean hopper | 250 g |
| Weight | 7.9 kg |
| Dimensions (W x H x D) | 24 x 36 x 43 cm |

## Customer service
For questions about your machine, visit www.aromavita.example.com/support or contact AromaVita Service:

- Netherlands: 030 281 7700
- Belgium: +32 2 588 4410
- United Kingdom: +44 20 7946 0958
- United States: 1-888-555-0134
- E-mail: service@aromavita.example.com
"""

WARRANTY = """
# AromaVita Warranty, Repairs and Returns

## Your warranty
AromaVita gives a two-year warranty on all espresso machines, starting on the date of purchase. If you register your machine within 30 days of purchase, the warranty is extended to three years. The warranty is valid in all countries of the European Union, the United Kingdom, Switzerland and the United States. Keep your receipt: you need it for every warranty claim.

## Registering your machine
Register your machine at www.aromavita.example.com/register. You need the model number and the serial number, which are printed on the label under the drip tray, for example BAR-300-EU and serial number 23A0417. After registration you receive a confirmation e-mail and a free bag of coffee beans.

## What the warranty covers
The warranty covers defects in materials and manufacturing, such as a broken pump, a faulty heating element or a control panel that no longer responds. During the warranty period, AromaVita repairs or replaces the machine free of charge, including collection and return shipping. If a repair is not possible, you receive a new machine of the same or a comparable model.

## What the warranty does not cover
- damage caused by limescale when the machine was not descaled as described in the user manual;
- damage caused by descaling with vinegar or products other than AromaVita descaling solution;
- wear parts such as seals, water filters and the brewing unit gasket;
- damage from dropping the machine, misuse or repairs by anyone other than AromaVita Service;
- machines used commercially, for example in offices with more than ten users or in cafes.

## How to make a warranty claim
1. Check the troubleshooting table and error codes in the user manual first; many problems can be solved at home.
2. Contact AromaVita Service by phone or through the form at www.aromavita.example.com/support. Have your serial number and receipt ready.
3. If the machine must be repaired, we send you a box and a shipping label. A courier collects the machine from your home.
4. Descale and clean the machine before you send it, and keep the water tank and the milk jug at home.

Most repairs are completed within ten working days after we receive the machine.

## Repairs outside the warranty
You can still have your machine repaired by AromaVita Service after the warranty has ended. We first send you a quote. If you decide not to go ahead, you only pay the inspection fee.

| Service | Price |
| Inspection fee (deducted from the repair price) | \u20ac35 |
| Descaling and service package | \u20ac79 |
| Pump replacement | \u20ac119 |
| Shipping both ways | \u20ac19.95 |

Repairs carried out by AromaVita Service come with a six-month warranty on the replaced parts.

## Returns within 14 days
If you bought your machine in the AromaVita online shop, you can return it within 14 days of delivery without giving a reason. The machine must be unused and in its original packaging. Report the return through your account in the online shop; we refund the purchase price within 14 days after we receive the machine. The costs of returning the machine are for your own account. For machines bought from a retailer, the return policy of that retailer applies.

## Spare parts and accessories
Original spare parts, such as filter baskets, water filters, seals and milk jugs, are available from the online shop for at least seven years after the production of a model ends. Water filters should be replaced every two months or after 60 litres of water. Using a water filter reduces limescale, so you need to descale less often.

## Recycling your machine
At the end of its life, do not throw your machine away with household waste. Bring it to a municipal collection point for electrical appliances, or hand it in at the shop where you buy a new machine. The shop is obliged to accept your old appliance free of charge. Used coffee grounds can go in the organic waste bin.

## Contact AromaVita Service
AromaVita Europe B.V., Lange Viestraat 12, 3511 BK Utrecht, the Netherlands

- Netherlands: 030 281 7700 (Monday to Friday, 9:00 to 17:30)
- Belgium: +32 2 588 4410
- United Kingdom: +44 20 7946 0958
- United States and Canada: 1-888-555-0134
- E-mail: service@aromavita.example.com
"""

ROUTER = """
# LinkHaven AX1800 Wi-Fi 6 Router: Setup Guide

## In the box
- LinkHaven AX1800 router
- Power adapter (12 V, 1.5 A)
- Ethernet cable (1.5 m, Cat 6)
- Quick start card with the default Wi-Fi name and password
- Safety and warranty information

## Choosing a good location
Wi-Fi signals are weakened by walls, floors and metal objects. For the best coverage, place the router:

- in a central, open position in your home, ideally at shoulder height;
- at least one metre away from microwave ovens, baby monitors and cordless phones;
- not inside a cupboard or behind the television;
- with the antennas pointing straight up.

## Connecting the router
1. Switch off your modem (the box from your internet provider).
2. Connect the blue WAN port of the router to a LAN port of your modem with the Ethernet cable.
3. Switch the modem on again and wait two minutes.
4. Connect the power adapter to the router and press the power button.
5. Wait until the status light is steady white. This takes about three minutes.

If your internet provider gave you a fibre box or cable modem with a built-in router, you can use the LinkHaven router as an extra access point: see the online manual at linkhaven.example.net/manuals.

## Setting up with the LinkHaven app
The easiest way to set up your router is the free LinkHaven app for Android and iOS.

1. Connect your phone to the Wi-Fi network printed on the quick start card, for example LinkHaven-4F2A.
2. Open the app and tap Set up a new router.
3. Choose a new network name and a password of at least 12 characters.
4. The app checks your internet connection and installs the latest firmware.

Setup takes about five minutes. Afterwards you can manage your network from anywhere with the app.

## Setting up in a web browser
You can also set up the router from a computer. Connect the computer to the router with a cable or to its Wi-Fi network, open a browser and go to http://192.168.1.1 or http://router.linkhaven.example.net. Log in with the admin password printed on the label under the router and follow the setup wizard. Change the admin password during setup: never keep the default password.

## Changing the Wi-Fi name and password
In the app, tap Wi-Fi, then Network settings. In the browser, go to Wireless, then Basic settings. Enter a new network name (SSID) and password and tap Save. All devices are disconnected and must reconnect with the new password. Use WPA3 security if all your devices support it; otherwise choose WPA2/WPA3 mixed mode.

## Guest network
A guest network gives visitors internet access without access to your own devices, such as printers and network drives. Switch it on in the app under Wi-Fi, then Guest network. You can set a separate password and a time limit of 2, 8 or 24 hours. The guest network is switched off by default.

## Parental controls
With parental controls you can create a profile for each child, assign their devices and set a daily time limit or a bedtime. Harmful websites are blocked with the built-in filter. Go to Family in the app to create profiles. Changes take effect within one minute.

## Status light
| Light | Meaning |
| Steady white | Connected to the internet, everything is fine |
| Blinking white | Starting up or installing a firmware update |
| Steady orange | No internet connection |
| Blinking orange | Ready for setup |
| Red | Hardware fault: contact support |

## Firmware updates
LinkHaven releases firmware updates with security fixes and new features. By default, the router installs updates automatically between 3:00 and 5:00 at night. You can check the installed version in the app under Router, then About, for example version 2.4.1. Never switch off the router while the light is blinking white during an update.

## No internet connection
If the status light is orange:

1. Check that the Ethernet cable is firmly connected to the blue WAN port and to the modem.
2. Restart the modem and then the router, in that order.
3. Check for a service outage on the website of your internet provider.
4. If your provider uses PPPoE, enter the user name and password from your provider under Internet settings.

## Slow or unstable Wi-Fi
- Move the router to a more central place, away from thick walls.
- Use the 5 GHz band for devices close to the router and the 2.4 GHz band for devices further away. Smart Connect chooses the best band automatically.
- Restart the router once a month.
- For large homes, add a LinkHaven mesh satellite to extend coverage.

## Resetting to factory settings
A factory reset removes all your settings, including the Wi-Fi name and password. Press and hold the reset button on the back of the router with a paperclip for ten seconds, until the status light blinks orange. Then set up the router again with the app or the browser.

## Warranty and support
The LinkHaven AX1800 has a two-year warranty. Register your router at linkhaven.example.net/register to receive security notices. For help, visit https://support.linkhaven.example.net, send an e-mail to support@linkhaven.example.net, or call us:

- United States: (555) 123-4567 (Monday to Friday, 9 a.m. to 8 p.m. ET)
- Netherlands: +31 10 799 5020
- Germany: +49 30 9016 2280
"""


DOCS = [
    Doc(
        "cardiology_clinic",
        CARDIOLOGY,
        header=HOSPITAL,
        footer="Leaflet CAR-014 \u00b7 version 2024-03",
        page_numbers="of",
    ),
    Doc(
        "maternity_ward",
        MATERNITY,
        header=HOSPITAL,
        footer="Leaflet MAT-030 \u00b7 version 2023-11",
        page_numbers="of",
        accent="#7a2e5f",
    ),
    Doc(
        "knee_replacement_physiotherapy",
        PHYSIO,
        header=HOSPITAL,
        footer="Leaflet ORT-052 \u00b7 version 2024-01",
        page_numbers="of",
        accent="#2e6b3a",
    ),
    Doc(
        "outpatient_pharmacy",
        PHARMACY,
        header=HOSPITAL,
        footer="Leaflet PHA-005 \u00b7 version 2024-02",
        page_numbers="of",
        accent="#005f73",
    ),
    Doc(
        "visiting_and_parking",
        VISITING,
        footer="Lindenhof Hospital, Spaarnelaan 40, 1054 KT Amsterdam",
        page_numbers="plain",
    ),
    Doc(
        "leave_policy",
        LEAVE,
        header=HANDBOOK,
        footer="Chapter 4 \u00b7 effective 1 January 2024",
        page_numbers="dash",
        accent="#b35900",
    ),
    Doc(
        "it_helpdesk",
        HELPDESK,
        header=HANDBOOK,
        footer="Chapter 7 \u00b7 effective 1 January 2024",
        page_numbers="dash",
        accent="#b35900",
    ),
    Doc(
        "travel_and_expenses",
        EXPENSES,
        header=HANDBOOK,
        footer="Chapter 5 \u00b7 effective 1 March 2024",
        page_numbers="dash",
        accent="#b35900",
    ),
    Doc("onboarding_guide", ONBOARDING, letter=True, accent="#b35900"),
    Doc("aromavita_barista_300_manual", COFFEE, header=PRODUCT, page_numbers="plain", accent="#5b3a29"),
    Doc(
        "aromavita_warranty",
        WARRANTY,
        footer="AromaVita Europe B.V. \u00b7 warranty conditions 2024",
        page_numbers="plain",
        accent="#5b3a29",
    ),
    Doc(
        "linkhaven_ax1800_setup",
        ROUTER,
        columns=2,
        footer="LinkHaven AX1800 setup guide \u00b7 rev. 1.3",
        page_numbers="plain",
        letter=True,
        accent="#0b6e4f",
    ),
]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
